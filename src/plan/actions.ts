/**
 * What a change does to one resource, the plan's own vocabulary: `promote` moves a package from the
 * source environment or a release; `rollback` installs the snapshot taken before a promotion
 * (`egp rollback`). Which ops each action of a kind runs is the kind's to declare (kinds/steps.ts).
 */
export const CHANGE_ACTIONS = ["create", "update", "delete", "deactivate", "promote", "rollback"] as const;

export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** The actions that take something live away: a plan shows them loudly and runs them last. */
export const DESTRUCTIVE_ACTIONS: readonly ChangeAction[] = ["delete", "deactivate"];
