export type { SettlementService } from "./settlement.service";
