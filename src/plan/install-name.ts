/*
 * An install (one entry of an environment's history, 12 hex digits) is not a release (a name like
 * 2026-11-r1): every message that names an install says which release it installed, or, for a
 * live promotion, which package from where. A release's package is named beside it where it matters.
 */

export interface InstallIdentity {
  id: string;
  /** The release installed; absent for a live promotion. */
  release?: string;
  package: { name: string };
  /** Where a live promotion's package was built. */
  sourceEnvironment?: string;
}

/** `install 9c01d2e7f3a4 of release 2026-11-r1`, or `install 9c01d2e7f3a4 of package "GRC Core" from dev`. */
export function installName(install: InstallIdentity): string {
  if (install.release !== undefined) return `install ${install.id} of release ${install.release}`;
  const from = install.sourceEnvironment ? ` from ${install.sourceEnvironment}` : "";
  return `install ${install.id} of package ${JSON.stringify(install.package.name)}${from}`;
}
