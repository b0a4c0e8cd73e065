/** notes_put (idempotent) and notes_append (not idempotent): small built-ins with visible side effects. */

import type { Action } from '../../core/actions.ts';
import * as z from '../../zod.ts';
import type { NotesPort } from '../notes-port.ts';

const NoteName = z
  .string()
  .check(z.regex(/^[a-z0-9_-]{1,64}$/, 'lowercase letters, digits, _ and -'), z.describe('The note name.'));

export function notesPutAction(notes: NotesPort): Action {
  return {
    name: 'notes_put',
    description: 'Set a run note to a value, replacing what it held. Safe to repeat.',
    input: z.strictObject({
      name: NoteName,
      value: z.string().check(z.maxLength(10_000), z.describe('The new content.')),
    }),
    idempotent: true,
    irreversible: false,
    async run(input, ctx) {
      const { name, value } = input as { name: string; value: string };
      await notes.put(ctx.scope.runId, name, value);
      return { content: `Note '${name}' set (${value.length} characters).`, isError: false };
    },
  };
}

export function notesAppendAction(notes: NotesPort): Action {
  return {
    name: 'notes_append',
    description: 'Append one line to a run note. Each call adds a line, so repeating it duplicates the line.',
    input: z.strictObject({
      name: NoteName,
      line: z.string().check(z.maxLength(2_000), z.describe('The line to append.')),
    }),
    idempotent: false,
    irreversible: false,
    async run(input, ctx) {
      const { name, line } = input as { name: string; line: string };
      const count = await notes.append(ctx.scope.runId, name, line);
      return { content: `Appended to note '${name}'; it now has ${count} line(s).`, isError: false };
    },
  };
}
