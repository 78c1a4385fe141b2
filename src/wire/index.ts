export * from "./content.ts";
export * from "./envelope.ts";
export * from "./group.ts";
export * from "./metadata.ts";
export * from "./package.ts";
export * from "./security-parameter.ts";
export * from "./session.ts";
export * from "./user.ts";
