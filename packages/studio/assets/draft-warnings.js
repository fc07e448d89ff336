/**
 * What a draft may save but likely should not: a param used nowhere (a run asks for a value it never
 * types) and a param with no example (a run must then be given its value). Listed beside the
 * problems, as `{path, message}`; Save is not held back by them.
 */

/** The texts of a workflow that may say a `{param}` template (all but its params). */
const textsOf = (workflow) => JSON.stringify({ ...workflow, task_params: [] });

export function draftWarnings(workflow) {
  const texts = textsOf(workflow);
  return workflow.task_params.flatMap((p, n) => [
    ...(texts.includes(`{${p.name}}`)
      ? []
      : [
          {
            path: `task_params[${n}]`,
            param: p.name,
            kind: 'unused',
            message: `${p.name} is used nowhere: write {${p.name}} where its value goes, or delete it`,
          },
        ]),
    ...(p.sensitive || (p.example ?? '') !== ''
      ? []
      : [
          {
            path: `task_params[${n}].example`,
            param: p.name,
            kind: 'no-example',
            message: `${p.name} has no example: every run must then be given its value`,
          },
        ]),
  ]);
}
