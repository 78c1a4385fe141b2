export * from "./envelope.ts";
export * from "./security-parameter.ts";
export * from "./session.ts";
export * from "./user.ts";
