/* Codes of the failures the emulator raises to its own process; docs/errors.md describes them. */
export const EmulatorErrorCode = {
  DataBusy: "EGP_DATA_BUSY",
  DataUnreadable: "EGP_DATA_UNREADABLE",
} as const;

export type EmulatorErrorCode = (typeof EmulatorErrorCode)[keyof typeof EmulatorErrorCode];

export const EMULATOR_ERROR_CODES: readonly EmulatorErrorCode[] = Object.values(EmulatorErrorCode);
