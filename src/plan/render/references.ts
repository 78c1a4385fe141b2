/*
 * A reference field's value as plans show it (src/plan/kinds/record-refs.ts): each record by its
 * application and key, `Risk Register "Cloud provider outage"`, never by its content id; one
 * reference alone, several in brackets. Only a record egp can't read is shown by its id.
 */

type Shown = { application: string; key: string[] } | { contentId: number };

function isShown(item: unknown): item is Shown {
  if (typeof item !== "object" || item === null) return false;
  const keys = Object.keys(item);
  if (keys.length === 1 && keys[0] === "contentId")
    return typeof (item as { contentId: unknown }).contentId === "number";
  const { application, key } = item as { application?: unknown; key?: unknown };
  return (
    keys.length === 2 &&
    typeof application === "string" &&
    Array.isArray(key) &&
    key.every((part) => typeof part === "string")
  );
}

/** The references' text, or undefined when `value` is not a reference field's shown value. */
export function referencesText(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const { references } = value as { references?: unknown };
  if (keys.length !== 1 || !Array.isArray(references) || !references.every(isShown)) return undefined;
  const items = references.map((item) =>
    "contentId" in item
      ? `(a record egp can't read, content id ${item.contentId})`
      : `${item.application} ${item.key.map((part) => JSON.stringify(part)).join(", ")}`,
  );
  return items.length === 1 ? (items[0] as string) : `[${items.join(", ")}]`;
}
