export { Secret } from "../wire/secret.ts";
