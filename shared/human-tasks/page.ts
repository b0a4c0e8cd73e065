/**
 * The human-task page behind a signed link: what is asked, the run context the node declares (as it was
 * when the task was requested), and the form rendered from its JSON Schema. No script, no external resource;
 * one form posting back to the same origin. All strings are untrusted and escaped on output.
 */
import { checkPostUrl, escapeHtml, formatInstant, jsonBlock, page, text } from '../approvals/html.ts';
import type { FormField } from '../graph/form.ts';
import type { ContextValue } from '../schemas/human-task.ts';
import { type FieldErrors, inputName } from './submission.ts';

export type HumanTaskPageView = {
  title: string;
  /** The owner whose run asks: an assignee serving several owners must see whose form they fill in. */
  owner: string;
  workflowName: string;
  runId: string;
  stepId: string;
  assignee: string;
  expiresAtIso: string;
  context: ContextValue[];
  fields: FormField[];
  /** The strings posted last time (by field name), to fill the form in again after errors. */
  posted?: Record<string, string>;
  errors?: FieldErrors;
  /** The link token (hidden field `t`) and this render's nonce (hidden field `nonce`). */
  token: string;
  nonce: string;
  /** Where the form posts: a same-origin path or an http(s) URL. */
  postUrl: string;
};

const attr = (name: string, value: string | number | undefined) =>
  value === undefined ? '' : ` ${name}="${escapeHtml(String(value))}"`;

/** The control of one field, named `f.<field>` and filled with what was posted. */
function control(field: FormField, posted: string | undefined, describedBy: string): string {
  const id = `f-${field.name}`;
  const common = `id="${id}" name="${escapeHtml(inputName(field.name))}"${field.required ? ' required' : ''}${describedBy}`;
  switch (field.kind) {
    case 'text':
      return `<input type="text" ${common}${attr('minlength', field.minLength)}${attr('maxlength', field.maxLength)} value="${escapeHtml(posted ?? '')}">`;
    case 'long_text':
      return `<textarea ${common}${attr('minlength', field.minLength)}${attr('maxlength', field.maxLength)}>${escapeHtml(posted ?? '')}</textarea>`;
    case 'number':
    case 'integer':
      return `<input type="number" step="${field.kind === 'integer' ? '1' : 'any'}" ${common}${attr('min', field.minimum)}${attr('max', field.maximum)} value="${escapeHtml(posted ?? '')}">`;
    case 'boolean':
      // An unticked box posts nothing, which reads as false; `required` would force it on, so it is left off.
      return `<input type="checkbox" id="${id}" name="${escapeHtml(inputName(field.name))}" value="true"${posted ? ' checked' : ''}${describedBy}>`;
    case 'enum': {
      const options = field.options
        .map((option, i) => {
          const selected = posted === String(i) ? ' selected' : '';
          return `<option value="${i}"${selected}>${text(String(option))}</option>`;
        })
        .join('');
      return `<select ${common}><option value="">Choose…</option>${options}</select>`;
    }
  }
}

/** `record[key]` when it is the record's own: a field named `constructor` is not Object.prototype's. */
const ownValue = <T>(record: Record<string, T> | undefined, key: string): T | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;

function fieldHtml(field: FormField, view: HumanTaskPageView): string {
  const error = ownValue(view.errors, field.name);
  const help = field.help ? `<p class="muted" id="h-${field.name}">${text(field.help)}</p>` : '';
  const errorHtml = error ? `<p class="error" id="e-${field.name}">${text(error)}</p>` : '';
  const ids = [help ? `h-${field.name}` : '', error ? `e-${field.name}` : ''].filter(Boolean).join(' ');
  const describedBy = ids ? ` aria-describedby="${ids}"${error ? ' aria-invalid="true"' : ''}` : '';
  const required = field.required ? ' <span class="req" title="required">*</span>' : '';
  // A first render shows each field's default; a re-render shows what was posted.
  const shown = view.posted === undefined ? field.initial : ownValue(view.posted, field.name);
  const input = control(field, shown, describedBy);
  const label =
    field.kind === 'boolean'
      ? `<label class="check">${input} ${text(field.label)}${required}</label>`
      : `<label for="f-${field.name}">${text(field.label)}${required}</label>${input}`;
  return `<div class="field" data-field="${escapeHtml(field.name)}">${label}${help}${errorHtml}</div>`;
}

function contextHtml(context: ContextValue[]): string {
  if (context.length === 0) return '';
  const rows = context
    .map((entry) => {
      const value =
        entry.value === undefined
          ? '<span class="muted">(nothing)</span>'
          : `<pre>${jsonBlock(entry.value)}</pre>${entry.truncated ? '<p class="muted">Shortened: the value is longer.</p>' : ''}`;
      return `<dt><code>${text(entry.path)}</code></dt><dd>${value}</dd>`;
    })
    .join('\n');
  return `<div class="card" id="context">
<h2>Run context</h2>
<p class="muted">What the run knew when it asked (read-only).</p>
<dl>${rows}</dl>
</div>`;
}

export function renderHumanTaskPage(view: HumanTaskPageView): string {
  checkPostUrl(view.postUrl);
  const errorCount = Object.keys(view.errors ?? {}).length;
  const summary =
    errorCount > 0
      ? `<p class="warn" id="errors">Nothing was submitted: ${errorCount === 1 ? 'one field needs' : `${errorCount} fields need`} correcting.</p>`
      : '';
  const formError = ownValue(view.errors, '');
  const formLevel = formError ? `<p class="error">${text(formError)}</p>` : '';
  const body = `
<div class="card">
<h1>${text(view.title)}</h1>
<p>A workflow run of owner <strong>${text(view.owner)}</strong> is waiting for you to fill in this form. Nothing happens until you submit it.</p>
<dl>
<dt>Owner (who asks)</dt><dd id="owner"><code>${text(view.owner)}</code></dd>
<dt>Workflow</dt><dd>${text(view.workflowName)}</dd>
<dt>Run</dt><dd><code>${text(view.runId)}</code> <span class="muted">step <code>${text(view.stepId)}</code></span></dd>
<dt>Assignee</dt><dd>${text(view.assignee)}</dd>
<dt>Link expires</dt><dd><time datetime="${escapeHtml(view.expiresAtIso)}">${text(formatInstant(view.expiresAtIso))}</time></dd>
</dl>
</div>
${contextHtml(view.context)}
<div class="card">
<form method="post" action="${escapeHtml(view.postUrl)}">
<input type="hidden" name="t" value="${escapeHtml(view.token)}">
<input type="hidden" name="nonce" value="${escapeHtml(view.nonce)}">
${summary}${formLevel}
${view.fields.map((field) => fieldHtml(field, view)).join('\n')}
<p class="muted">You submit as <strong>${text(view.assignee)}</strong>; what you submit is recorded in the run's audit log. The first submission counts.</p>
<div class="actions"><button class="submit" type="submit">Submit</button></div>
</form>
</div>`;
  return page(`Task for ${view.owner}: ${view.title} (${view.workflowName})`, body);
}
