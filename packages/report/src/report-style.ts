/**
 * The report's stylesheet and its one script, inlined in the page. System fonts, light and dark
 * colour schemes, a zoom that is a checkbox and CSS (the script only adds Escape to close it).
 */

export const REPORT_CSS = `
:root {
  color-scheme: light dark;
  --bg: #f5f6f8; --card: #ffffff; --sunk: #f0f2f5; --text: #1b2029; --muted: #626b79; --line: #e1e4e9;
  --accent: #3656d6; --ok: #146c2e; --ok-bg: #dcf5e3; --bad: #c4262e; --bad-bg: #fde8e8;
  --warn: #8a5a00; --warn-bg: #fdf3cf; --info: #5a45c8; --info-bg: #ebe7fd; --idle: #5b626e; --idle-bg: #eceef1;
  --mark: #ff2d6f; --shadow: 0 1px 2px rgb(16 24 40 / 6%), 0 1px 3px rgb(16 24 40 / 8%);
  --mono: ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0e1116; --card: #161b22; --sunk: #1d232c; --text: #e3e7ed; --muted: #98a1ae; --line: #2a313c;
    --accent: #7c98ff; --ok: #4cc46a; --ok-bg: #15301e; --bad: #ff6b6b; --bad-bg: #3a1618;
    --warn: #e7b53c; --warn-bg: #33290f; --info: #a797ff; --info-bg: #251f45; --idle: #9aa3af; --idle-bg: #232a33;
    --shadow: 0 1px 2px rgb(0 0 0 / 40%);
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--text); }
body {
  margin: 0 auto; max-width: 1240px; padding: 28px 24px 64px;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
  -webkit-font-smoothing: antialiased;
}
h1, h2, h3 { line-height: 1.25; margin: 0; }
h1 { font-size: 26px; font-weight: 650; letter-spacing: -0.01em; }
h2 { font-size: 16px; font-weight: 600; }
h3 { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin: 12px 0 6px; }
p { margin: 0; }
code, kbd, pre { font-family: var(--mono); font-size: 0.9em; }
code { background: var(--sunk); padding: 0.05em 0.35em; border-radius: 4px; overflow-wrap: anywhere; }
kbd { display: inline-block; min-width: 1.6em; padding: 0 0.45em; border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 5px; background: var(--card); text-align: center; line-height: 1.5; }
q.value, q.typed { font-family: var(--mono); font-size: 0.92em; quotes: "“" "”"; }
q.typed { white-space: pre-wrap; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.muted { color: var(--muted); }
.bad { color: var(--bad); }
.label { font-size: 11px; font-weight: 600; letter-spacing: 0.06em; text-transform: uppercase; color: var(--muted); margin-right: 4px; }
.num { font-variant-numeric: tabular-nums; white-space: nowrap; }

.run-head { display: grid; gap: 10px; margin-bottom: 18px; }
.eyebrow { font-size: 12px; font-weight: 600; letter-spacing: 0.08em; text-transform: uppercase; color: var(--muted); }
.lede { color: var(--muted); font-size: 15px; max-width: 80ch; }
.verdict { display: flex; gap: 12px; align-items: flex-start; padding: 12px 16px; border-radius: 10px; border: 1px solid transparent; }
.verdict-mark { font-size: 22px; line-height: 1; width: 34px; height: 34px; display: grid; place-items: center; border-radius: 50%; color: #fff; flex: none; }
.verdict-title { font-size: 17px; }
.verdict-reason { margin-top: 2px; white-space: pre-wrap; overflow-wrap: anywhere; }
.cause { display: grid; gap: 6px; margin-top: 4px; }
.cause-headline { font-weight: 600; overflow-wrap: anywhere; }
.cause .pair { max-width: 720px; }
.cause-actions { margin: 0; padding-left: 18px; }
.cause-message p { white-space: pre-wrap; overflow-wrap: anywhere; }
.verdict-success { background: var(--ok-bg); } .verdict-success .verdict-mark { background: var(--ok); }
.verdict-failed { background: var(--bad-bg); } .verdict-failed .verdict-mark { background: var(--bad); }
.verdict-aborted, .verdict-running, .verdict-interrupted, .verdict-unfinished { background: var(--warn-bg); } .verdict-aborted .verdict-mark, .verdict-running .verdict-mark, .verdict-interrupted .verdict-mark, .verdict-unfinished .verdict-mark { background: var(--warn); }
.facts { display: flex; flex-wrap: wrap; gap: 6px 28px; margin: 2px 0 0; }
.facts dt { font-size: 11px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); }
.facts dd { margin: 0; }

.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(250px, 1fr)); gap: 12px; margin-bottom: 18px; }
.panel, .contents, .subtask, .replan, .final { background: var(--card); border: 1px solid var(--line); border-radius: 12px; box-shadow: var(--shadow); }
.panel { padding: 12px 14px; }
.panel h2 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin-bottom: 8px; }
table { border-collapse: collapse; width: 100%; }
table.kv { width: auto; }
.kv th { text-align: left; font-weight: 500; padding: 2px 16px 2px 0; white-space: nowrap; vertical-align: top; }
.kv td { padding: 2px 0; overflow-wrap: anywhere; }
.stats { display: grid; grid-template-columns: repeat(3, auto); gap: 6px 14px; margin: 0; }
.stats dt { font-size: 11px; color: var(--muted); }
.stats dd { margin: 0; font-size: 17px; font-weight: 600; font-variant-numeric: tabular-nums; }
.budgets { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
.budgets li { display: grid; grid-template-columns: 1fr auto; gap: 2px 8px; }
.budgets li > span:first-child::first-letter { text-transform: uppercase; }
.budgets .bar { grid-column: 1 / -1; }
.bar { display: block; height: 6px; border-radius: 3px; background: var(--sunk); overflow: hidden; }
.bar > span { display: block; height: 100%; border-radius: 3px; background: var(--ok); }
.bar-high > span { background: var(--warn); } .bar-full > span { background: var(--bad); }

.pill, .badge, .exec, .tool { display: inline-block; font-size: 11px; font-weight: 600; line-height: 18px; padding: 0 8px; border-radius: 9px; white-space: nowrap; }
.pill-success { color: var(--ok); background: var(--ok-bg); }
.pill-failed { color: var(--bad); background: var(--bad-bg); }
.pill-aborted, .pill-running, .pill-interrupted, .pill-unfinished, .pill-replanned { color: var(--warn); background: var(--warn-bg); }
.pill-not_run { color: var(--idle); background: var(--idle-bg); }
.pill-replan { color: var(--info); background: var(--info-bg); }
.badge { background: var(--warn-bg); color: var(--warn); }
.badge-failed { background: var(--bad-bg); color: var(--bad); }
.badge-secret { background: var(--info-bg); color: var(--info); }
.exec { background: var(--sunk); color: var(--text); font-family: var(--mono); font-weight: 500; }
.exec-trace { background: var(--ok-bg); color: var(--ok); }
.exec-regrounded { background: var(--warn-bg); color: var(--warn); }
.exec-agent { background: var(--info-bg); color: var(--info); }
.exec-skipped { background: var(--idle-bg); color: var(--idle); }
.rung { font-size: 11px; font-family: var(--mono); color: var(--muted); }

.contents { padding: 12px 14px; margin-bottom: 18px; }
.contents h2 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin-bottom: 6px; }
.contents ol { list-style: none; margin: 0; padding: 0; }
.contents a { display: flex; align-items: baseline; gap: 10px; padding: 4px 6px; border-radius: 6px; color: inherit; }
.contents a:hover { background: var(--sunk); text-decoration: none; }
.toc-no { font-variant-numeric: tabular-nums; color: var(--muted); width: 1.5em; text-align: right; flex: none; }
.toc-text { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.toc-meta { color: var(--muted); font-size: 12px; white-space: nowrap; }
.toc-replan .toc-text { color: var(--info); }

.subtask, .replan { margin-bottom: 16px; padding: 14px 16px; border-left: 4px solid var(--line); }
.subtask.outcome-success { border-left-color: var(--ok); }
.subtask.outcome-failed { border-left-color: var(--bad); }
.subtask.outcome-replanned, .subtask.outcome-running, .subtask.outcome-interrupted, .subtask.outcome-unfinished { border-left-color: var(--warn); }
/* A subtask not run: dashed, not faded (faded text would fall below 4.5:1 contrast). */
.subtask.outcome-not_run { border-style: dashed; }
.replan { border-left-color: var(--info); }
.subtask-head { display: flex; gap: 12px; align-items: flex-start; }
.subtask-no { flex: none; width: 28px; height: 28px; border-radius: 50%; display: grid; place-items: center; background: var(--sunk); font-weight: 600; font-variant-numeric: tabular-nums; }
.subtask-title { flex: 1; min-width: 0; display: grid; gap: 2px; }
.subtask-title h2 { font-size: 16px; }
.expected { color: var(--text); }
.subtask-meta { color: var(--muted); font-size: 12px; }
.steps { margin: 10px 0 0 40px; font-size: 13px; }
.steps summary { cursor: pointer; color: var(--muted); }
.steps table { margin-top: 6px; }
.steps td { border-top: 1px solid var(--line); padding: 5px 10px 5px 0; vertical-align: top; }

.turns { list-style: none; margin: 12px 0 0; padding: 0; display: grid; gap: 10px; }
.turn { display: grid; grid-template-columns: minmax(0, 46%) minmax(0, 1fr); gap: 16px; padding-top: 12px; border-top: 1px solid var(--line); scroll-margin-top: 12px; }
.turn-body { display: grid; gap: 7px; align-content: start; min-width: 0; }
.turn-head { display: flex; align-items: center; gap: 8px; }
.turn-no { font-weight: 600; color: var(--text); }
.turn-time { margin-left: auto; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.tool { background: var(--sunk); color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; font-size: 10px; }
.tool-done { background: var(--ok-bg); color: var(--ok); }
.tool-extract { background: var(--info-bg); color: var(--info); }
.tool-replan, .tool-none { background: var(--warn-bg); color: var(--warn); }
.tool-step { background: var(--info-bg); color: var(--info); text-transform: none; letter-spacing: 0; }
.step-line { overflow-wrap: anywhere; }
.turn-action { font-size: 15px; font-weight: 500; overflow-wrap: anywhere; }
.observation { margin: 0; padding: 6px 10px; border-left: 3px solid var(--accent); background: var(--sunk); border-radius: 0 6px 6px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.memory, .extract, .replan-reason { white-space: pre-wrap; overflow-wrap: anywhere; }
.done-line { color: var(--ok); font-weight: 600; }
.claim { margin: 4px 0; font-size: 0.9em; }
.claim-verified .label { color: var(--ok); }
.claim-refused .label, .claim-unverified .label { color: var(--warn); }
.turn-meta { color: var(--muted); font-size: 12px; }
.sep { margin: 0 6px; }
.callout { padding: 7px 10px; border-radius: 8px; font-size: 13px; overflow-wrap: anywhere; }
.callout div { white-space: pre-wrap; }
.callout ul { margin: 2px 0 0; padding-left: 18px; white-space: normal; }
.callout-bad { background: var(--bad-bg); } .callout-bad strong { color: var(--bad); }
.callout-warn { background: var(--warn-bg); } .callout-warn strong { color: var(--warn); }
.callout-info { background: var(--info-bg); } .callout-info strong { color: var(--info); }
.verified { margin: 4px 0; color: var(--ok); font-size: 0.9em; }
.notice { margin: 0 0 16px; }
.raw summary { cursor: pointer; color: var(--muted); font-size: 12px; }
.raw pre { background: var(--sunk); padding: 8px; border-radius: 6px; overflow: auto; max-height: 280px; font-size: 12px; }

.replan-head { display: flex; align-items: center; gap: 10px; }
.replan-icon { color: var(--info); font-size: 20px; line-height: 1; }
.replan-reason { margin: 8px 0 4px; }
.replan-grid { display: grid; grid-template-columns: minmax(0, 46%) minmax(0, 1fr); gap: 16px; margin-top: 8px; }
.completed, .new-plan { margin: 0; padding-left: 22px; }
.completed li, .new-plan li { margin: 2px 0; overflow-wrap: anywhere; }
.completed { font-family: var(--mono); font-size: 12px; }

.divergence { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; display: grid; gap: 6px; }
.divergence-title { font-weight: 600; color: var(--warn); margin-right: 8px; }
.divergence meter { width: 100%; height: 8px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
.pair figure { margin: 0; min-width: 0; }
.pair figcaption { font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin-bottom: 3px; }
.outcome-check { margin-top: 12px; padding-top: 12px; border-top: 1px solid var(--line); display: grid; gap: 6px; }
.final-screen { max-width: 760px; }
.run-files a { margin-right: 10px; }

.shot { position: relative; aspect-ratio: var(--ar); border-radius: 8px; }
.shot-missing { display: grid; place-items: center; min-height: 120px; aspect-ratio: 16 / 10; background: var(--sunk); color: var(--muted); text-align: center; font-size: 12px; border: 1px dashed var(--line); }
.shot-missing .shot-caption { position: absolute; left: 8px; bottom: 8px; }
.zoom { position: absolute; opacity: 0; width: 1px; height: 1px; pointer-events: none; }
.shot-frame { display: block; width: 100%; height: 100%; cursor: zoom-in; }
.shot-canvas { position: relative; display: block; width: 100%; height: 100%; border-radius: 8px; overflow: hidden; border: 1px solid var(--line); background: var(--sunk); }
.shot-canvas img { display: block; width: 100%; height: 100%; }
.marks { position: absolute; inset: 0; width: 100%; height: 100%; overflow: hidden; pointer-events: none; }
.mark-halo { fill: none; stroke: #fff; stroke-opacity: 0.9; stroke-width: 6px; vector-effect: non-scaling-stroke; stroke-linecap: round; }
.mark-ring, .mark-line { fill: none; stroke: var(--mark); stroke-width: 3px; vector-effect: non-scaling-stroke; stroke-linecap: round; }
.mark-dashed { stroke-dasharray: 5 4; }
.mark-region { fill: rgb(255 176 32 / 14%); stroke: #ffb020; stroke-width: 2.5px; stroke-dasharray: 7 4; vector-effect: non-scaling-stroke; }
.mark-dot, .mark-head { fill: var(--mark); stroke: #fff; stroke-width: 1.5px; vector-effect: non-scaling-stroke; }
.shot-caption { position: absolute; left: 8px; bottom: 8px; max-width: calc(100% - 16px); display: flex; gap: 6px; align-items: center; padding: 3px 9px; border-radius: 7px; background: rgb(17 20 26 / 84%); color: #fff; font-size: 12.5px; line-height: 1.5; box-shadow: 0 1px 4px rgb(0 0 0 / 30%); }
.cap-text { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.shot-caption kbd { background: rgb(255 255 255 / 12%); border-color: rgb(255 255 255 / 30%); color: #fff; }
.shot-caption code { background: rgb(255 255 255 / 14%); }
.shot-name { display: none; }
.zoom:focus-visible + .shot-frame .shot-canvas { outline: 2px solid var(--accent); outline-offset: 2px; }
.zoom:checked + .shot-frame { position: fixed; inset: 0; z-index: 10; display: grid; place-content: center; justify-items: center; gap: 8px; padding: 2vmin; background: rgb(8 10 14 / 96%); cursor: zoom-out; }
.zoom:checked + .shot-frame .shot-canvas { width: min(96vw, calc(90vh * var(--ar))); height: auto; aspect-ratio: var(--ar); border: 0; }
.zoom:checked + .shot-frame .shot-caption { font-size: 15px; }
.zoom:checked + .shot-frame .shot-name { display: block; color: #c9cfd8; font-size: 12px; font-family: var(--mono); }

.final { padding: 12px 16px; margin-top: 8px; }
.final p { white-space: pre-wrap; overflow-wrap: anywhere; }
footer { margin-top: 20px; color: var(--muted); font-size: 12px; }

@media (max-width: 760px) {
  body { padding: 16px 12px 48px; }
  .turn, .replan-grid { grid-template-columns: 1fr; }
  .steps { margin-left: 0; }
}
@media print {
  .zoom:checked + .shot-frame { position: static; background: none; padding: 0; }
  .subtask, .replan { break-inside: avoid-page; }
}
`;

/** Escape closes a zoomed screenshot (clicking it again does too, without scripts). */
export const REPORT_SCRIPT = `document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  for (const box of document.querySelectorAll('input.zoom:checked')) box.checked = false;
});`;
