export { type AcquirerAccount, acquirerControl, type RunningAcquirer, startAcquirer } from "./acquirer";
export {
  acquirerFtpUrl,
  acquirerStateDir,
  type EmbeddedAcquirer,
  embeddedAcquirerControl,
  readAcquirerSettings,
  startEmbeddedAcquirer,
} from "./embedded";
export {
  isDeclined,
  SANDBOX_FEE_BASIS_POINTS,
  SETTLEMENT_COLUMNS,
  settle,
  UPLOAD_COLUMNS,
} from "./settlement-file";
