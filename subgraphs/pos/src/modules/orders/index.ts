export type { OrderService } from "./order.service";
