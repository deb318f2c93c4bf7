// What the cluster's processes share with the embedded platform.
export { configureGatewaySync, startBackgroundWork } from "./background";
