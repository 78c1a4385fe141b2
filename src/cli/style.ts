import { styleText } from "node:util";

export type Colour = Parameters<typeof styleText>[0];

/**
 * Whether to colour what goes to `stream`, in the order of precedence of no-color.org and
 * force-color.org: `--no-color`, then a non-empty NO_COLOR, then FORCE_COLOR (any value but `0` or
 * `false`), then whether the stream is a terminal that isn't `dumb`.
 */
export function wantsColour(
  stream: { isTTY?: boolean },
  flags: { color?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (flags.color === false) return false;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  return Boolean(stream.isTTY) && env.TERM !== "dumb";
}

export interface Style {
  readonly on: boolean;
  paint(colour: Colour, text: string): string;
}

export function styleOf(on: boolean): Style {
  // styleText checks the stream and the environment itself; the choice is made once, above.
  return { on, paint: (colour, text) => (on ? styleText(colour, text, { validateStream: false }) : text) };
}

/** The styles of stdout and stderr for a command's flags. */
export function stylesFor(flags: { color?: boolean }): { out: Style; err: Style } {
  return {
    out: styleOf(wantsColour(process.stdout, flags)),
    err: styleOf(wantsColour(process.stderr, flags)),
  };
}

/** A plan line's colour by its mark, as Terraform colours its plans. */
function planLineColour(line: string): Colour | undefined {
  const text = line.trimStart();
  if (text.startsWith("# "))
    return /DELETED|DEACTIVATED|would DELETE|would DEACTIVATE/.test(text) ? "red" : "bold";
  if (text.startsWith("+ ")) return "green";
  if (text.startsWith("~ ")) return "yellow";
  if (text.startsWith("- ")) return "red";
  if (text.startsWith("» ")) return "cyan";
  if (/^(Plan|Drift):/.test(text)) return "bold";
  return undefined;
}

/** Colours the text rendering of a plan line by line; the words are unchanged. */
export function paintPlan(text: string, style: Style): string {
  if (!style.on) return text;
  return text
    .split("\n")
    .map((line) => {
      const colour = planLineColour(line);
      return colour && line.trim() ? style.paint(colour, line) : line;
    })
    .join("\n");
}
