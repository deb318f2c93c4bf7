export type { CustomerService } from "./customer.service";
