/**
 * Splits the composite action's `args` input into an argv, as a shell would split words, without
 * any of a shell's expansions: whitespace separates, single and double quotes group, and a
 * backslash escapes the next character outside single quotes. `$(…)` and `${…}` stay text, so an
 * input can never run a command.
 */
export function splitArgs(input: string): string[] {
  const args: string[] = [];
  let current = "";
  let started = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < input.length; i++) {
    const char = input[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === "\\" && quote === '"' && i + 1 < input.length) current += input[++i];
      else current += char;
      continue;
    }
    if (/\s/.test(char)) {
      if (started) args.push(current);
      current = "";
      started = false;
      continue;
    }
    started = true;
    if (char === "'" || char === '"') quote = char;
    else if (char === "\\" && i + 1 < input.length) current += input[++i];
    else current += char;
  }
  if (quote) throw new Error(`args: unterminated ${quote} quote`);
  if (started) args.push(current);
  return args;
}
