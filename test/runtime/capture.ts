/** Test support: what Powertools writes to stdout and stderr (log lines and EMF blobs), kept, not printed. */
import { vi } from 'vitest';

export type Captured = {
  /** Every chunk written to stdout or stderr since `captureOutput()`. */
  chunks: string[];
  /** Every JSON line written, parsed. */
  json(): Record<string, unknown>[];
  /** The EMF blobs (lines with `_aws.CloudWatchMetrics`). */
  emf(): EmfBlob[];
  /** The log lines (JSON lines with a `message`). */
  logs(): Record<string, unknown>[];
  restore(): void;
};

export type EmfBlob = Record<string, unknown> & {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
};

/** Spies on `process.stdout.write` and `process.stderr.write`, where Powertools' own consoles write. */
export function captureOutput(): Captured {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return true;
    }) as typeof stream.write),
  );
  const json = () =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    chunks,
    json,
    emf: () => json().filter((line): line is EmfBlob => '_aws' in line),
    logs: () => json().filter((line) => !('_aws' in line) && 'message' in line),
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
