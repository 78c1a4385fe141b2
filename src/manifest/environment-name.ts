/** Environment names are file names: letters, digits, `.`, `_` and `-`. */
export const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
