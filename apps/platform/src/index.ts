// What the cluster's processes share with the embedded platform.
export { configureGatewaySync, startAuditTrail, startBackgroundWork, startPosBackgroundWork } from "./background";
export { scheduleKeyRotation } from "./signing-keys";
