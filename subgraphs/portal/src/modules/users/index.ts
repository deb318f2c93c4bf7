export { verifySecret } from "./credentials";
export { usesPassword } from "./user.inputs";
export type { UserAuthentication, UserRow, UserService } from "./user.service";
