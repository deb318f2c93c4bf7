export { verifySecret } from "./credentials";
export type { UserInput } from "./user.inputs";
export { type UserAuthentication, type UserRow, type UserService, usesPassword } from "./user.service";
