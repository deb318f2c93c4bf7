export { verifySecret } from "./credentials.rules";
export type { UserInput } from "./user.inputs";
export { type UserAuthentication, type UserRow, type UserService, usesPassword } from "./user.service";
