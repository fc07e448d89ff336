/**
 * Checks JUnit XML against the Jenkins xUnit schema (fixtures/junit/junit-10.xsd) with libxml2
 * (xmllint-wasm): the errors, empty when the file is valid.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { REPO_ROOT } from './run-mime.ts';

export async function junitSchemaErrors(xml: string): Promise<string[]> {
  const schema = await readFile(join(REPO_ROOT, 'fixtures', 'junit', 'junit-10.xsd'), 'utf8');
  const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [schema] });
  return result.errors.map((error) => error.message);
}
