export { verifySecret } from "./credentials.rules";
export { usesPassword } from "./user.inputs";
export type { UserAuthentication, UserRow, UserService } from "./user.service";
