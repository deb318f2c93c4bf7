-- One database per subgraph; each process applies its migrations on start, under an advisory lock.
CREATE DATABASE pos_cloud_portal;
CREATE DATABASE pos_cloud_pos;
CREATE DATABASE pos_cloud_payments;
