export { type EmbeddedSftp, embeddedSftpControl, readSftpBaseUrl, sftpStateDir, startEmbeddedSftp } from "./embedded";
export { type ReceivedFile, type RunningSftp, type SftpAccount, sftpControl, startSftpServer } from "./sftp-server";
