/**
 * How each step state looks in the graph drawing and its legend. Colour is never the only signal: every node
 * also prints its state in words, and the states that mean "nothing ran here" (skipped, cancelled) are dashed.
 */
import { html } from 'hono/html';
import { STEP_STATUSES, type StepStatus } from '../../schemas/graph-step.ts';

type Look = { fill: string; stroke: string; dash?: string };

export const STATE_LOOKS: Record<StepStatus, Look> = {
  pending: { fill: '#f3f4f6', stroke: '#8b949e' },
  running: { fill: '#cfe3ff', stroke: '#1f5fbf' },
  waiting: { fill: '#ffe8a3', stroke: '#9a6700' },
  succeeded: { fill: '#c9f0d3', stroke: '#0a6b2a' },
  failed: { fill: '#f8c4c4', stroke: '#a40000' },
  skipped: { fill: '#ffffff', stroke: '#8b949e', dash: '5 4' },
  cancelled: { fill: '#e4dcf0', stroke: '#5b3f8c', dash: '2 3' },
};

const swatch = (state: StepStatus) => {
  const look = STATE_LOOKS[state];
  return html`<svg width="18" height="12" aria-hidden="true"><rect x="1" y="1" width="16" height="10" rx="2"
fill="${look.fill}" stroke="${look.stroke}" stroke-width="1.5" stroke-dasharray="${look.dash ?? 'none'}"/></svg>`;
};

/** The legend: one swatch and the state's name for every step state. */
export const legend = () =>
  html`<ul id="graph-legend" class="legend">${STEP_STATUSES.map(
    (state) => html`<li>${swatch(state)} ${state}</li>`,
  )}</ul>`;
