/**
 * Assumed codes of the install options (DESIGN §4.3): the interface description does not give
 * their meaning, so an environment file may replace them (`installCodes`).
 */
export const INSTALL_METHOD_CODES = { createNew: 1, createAndUpdate: 2 } as const;
export const INSTALL_OPTION_CODES = { keep: 1, override: 2 } as const;
export const TRANSLATION_OPTION_CODES = { none: 0, install: 1 } as const;

/** The words of each install option, as manifests write them. */
export interface InstallWords {
  method: keyof typeof INSTALL_METHOD_CODES;
  layout: keyof typeof INSTALL_OPTION_CODES;
  translations: keyof typeof TRANSLATION_OPTION_CODES;
}

/** An environment file's `installCodes`: the codes it gives, by option and word. */
export interface InstallCodeOverrides {
  installMethod?: Partial<Record<InstallWords["method"], number>>;
  installOption?: Partial<Record<InstallWords["layout"], number>>;
  translationOption?: Partial<Record<InstallWords["translations"], number>>;
}
