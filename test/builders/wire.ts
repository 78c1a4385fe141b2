/*
 * Objects as the interface answers them, for tests: every key in the order of the seed's tables
 * (the wire schemas' order). `overrides` replace values in place; keys the interface does not have
 * come after its own, as an instance would add them.
 */

export function wireUser(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Id: 7,
    DisplayName: "Doe, Jane",
    FirstName: "Jane",
    MiddleName: null,
    LastName: "Doe",
    LastLoginDate: null,
    UserName: "jdoe",
    AccountStatus: 1,
    DomainId: null,
    SecurityId: 2,
    Locale: null,
    TimeZoneId: "UTC",
    Address: null,
    Company: null,
    Title: null,
    AdditionalNote: null,
    BusinessUnit: null,
    Department: null,
    DistinguishedName: null,
    ForcePasswordChange: false,
    Type: 1,
    LanguageId: 1,
    DefaultHomeDashboardId: -1,
    DefaultHomeWorkspaceId: -1,
    UpdateInformation: null,
    ...overrides,
  };
}
