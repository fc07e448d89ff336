/** A workflow's Run form: its params, a mode, a fresh start; the run it starts is watched by run-live.js. */
import { api } from './api.js';
import { h, say } from './dom.js';
import { liveRun, runGoingOn, watchRun } from './run-live.js';

/** Starting a replay with params, a mode and (when the workflow can start its app) a fresh app. */
export function runPanel(state) {
  const { workflow } = state;
  const inputs = workflow.task_params.map((p) =>
    h(
      'p',
      {},
      h('label', { for: `run-${p.name}` }, `${p.name} `),
      h('input', {
        id: `run-${p.name}`,
        name: p.name,
        type: p.sensitive ? 'password' : 'text',
        // No silent defaults: the field holds the param's explicit default only; its recorded example
        // is a hint. A required plain param must be filled (a sensitive one may come from the environment).
        value: p.sensitive ? '' : (p.default ?? ''),
        placeholder: p.sensitive || p.example === null ? null : `recorded: ${p.example}`,
        required: !p.sensitive && !p.optional && (p.default ?? null) === null,
        autocomplete: 'off',
      }),
    ),
  );
  const mode = h(
    'select',
    { id: 'run-mode', name: 'mode' },
    ['auto', 'trace', 'agent'].map((m) => h('option', { value: m }, m)),
  );
  // A fresh start needs the workflow's setup (the command that starts its app).
  const canFresh = Boolean(state.saved.setup);
  const fresh = h('input', {
    type: 'checkbox',
    id: 'run-fresh',
    name: 'fresh',
    disabled: !canFresh,
    'aria-describedby': 'run-fresh-note',
  });
  const start = h(
    'button',
    { type: 'submit', id: 'run-start', class: 'primary', disabled: state.dirty || runGoingOn(state) },
    'Run',
  );
  const form = h(
    'form',
    {
      class: 'run',
      'aria-labelledby': 'run-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const params = Object.fromEntries(
          workflow.task_params.map((p) => [p.name, form.elements[p.name].value]),
        );
        const request = { mode: mode.value, fresh: fresh.checked, params };
        const result = await api(`/api/workflows/${encodeURIComponent(state.id)}/runs`, {
          method: 'POST',
          body: request,
        });
        if (!result.ok) return say(result.body?.error?.message ?? 'the run did not start', { error: true });
        // Secrets are not kept in the page once sent (Re-run asks the studio, which keeps them).
        const secrets = workflow.task_params.filter((p) => p.sensitive).map((p) => p.name);
        for (const name of secrets) form.elements[name].value = '';
        const plain = Object.fromEntries(Object.entries(params).filter(([name]) => !secrets.includes(name)));
        watchRun(state, result.body.run.id, { ...request, params: plain, secrets });
      },
    },
    h('h2', { id: 'run-heading' }, 'Run'),
    inputs,
    h('p', {}, h('label', { for: 'run-mode' }, 'Mode '), mode),
    h(
      'p',
      {},
      fresh,
      h('label', { for: 'run-fresh' }, ' Start from a fresh app'),
      h(
        'span',
        { id: 'run-fresh-note', class: 'muted' },
        canFresh
          ? ' — restarts the app from the workflow\u2019s setup first, so nothing an earlier run left is in the way'
          : ' — needs the workflow\u2019s setup (the command that starts its app): add one with mime edit',
      ),
    ),
    h('p', {}, start),
    state.dirty ? h('p', { class: 'muted' }, 'Save first: a run replays the saved workflow.') : null,
  );
  return h('section', { class: 'run-panel' }, form, liveRun(state));
}
