export { verifySecret } from "./credentials";
export type { UserAuthentication, UserRow, UserService } from "./user.service";
export { usesPassword } from "./user-input";
