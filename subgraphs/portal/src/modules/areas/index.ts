export type { AreaService } from "./area.service";
