import { z } from "zod";

const text = z.string().min(1).max(200);

export const auditFilter = z
  .strictObject({
    event: text.regex(/^[a-z_]+(\.[a-z_]+|\.\*)?$/, "an event name (user.login) or a family (user.*)").optional(),
    actor: text.optional(),
    target: text.optional(),
    from: z.date().optional(),
    to: z.date().optional(),
  })
  .refine(({ from, to }) => !from || !to || from <= to, {
    path: ["from"],
    message: "from must not be after to",
    params: { constraint: "before_to" },
  });
export type AuditFilterInput = z.output<typeof auditFilter>;
