/**
 * Colour for terminal output: on when stdout is a TTY, off with NO_COLOR (https://no-color.org), forced on
 * with FORCE_COLOR (any value but 0). Never in --json output.
 */
export type Colours = Record<'red' | 'green' | 'yellow' | 'bold' | 'dim', (text: string) => string>;

const CODES = { red: [31, 39], green: [32, 39], yellow: [33, 39], bold: [1, 22], dim: [2, 22] } as const;

export function colourEnabled(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0';
  return isTTY;
}

export function colours(enabled: boolean): Colours {
  const paint = (name: keyof typeof CODES) => (text: string) =>
    enabled ? `\u001b[${CODES[name][0]}m${text}\u001b[${CODES[name][1]}m` : text;
  return {
    red: paint('red'),
    green: paint('green'),
    yellow: paint('yellow'),
    bold: paint('bold'),
    dim: paint('dim'),
  };
}

/** A run status coloured by how it ended: green done, red failed/denied, yellow waiting or cancelled. */
export function statusColour(c: Colours, status: string): string {
  if (status === 'done') return c.green(status);
  if (status === 'failed' || status === 'denied') return c.red(status);
  if (status === 'awaiting_approval' || status === 'cancelled') return c.yellow(status);
  return status;
}
