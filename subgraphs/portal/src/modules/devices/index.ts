export { deviceMachine } from "./device.machine";
export { type DeviceService, presentDevice } from "./device.service";
