import { test, expect } from '@playwright/test';
import { email, hydrated, signIn } from './session';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

// The journey of a data team on the Formula 1 data: connect it, shape its
// ontology, publish, ask the seed's questions in the playground and through
// an MCP client, and turn a good answer into a verified question.

const f1Url = process.env.CASSIS_E2E_F1_URL ?? '';
const python = process.env.CASSIS_TEST_PYTHON ?? '';
const repo = path.join(__dirname, '..', '..');
const screenshots = path.join(__dirname, '..', 'screenshots');

test('a data team connects F1, shapes and publishes its ontology, and gets the seed answers', async ({ page }) => {
  test.setTimeout(240_000);
  expect(f1Url, 'CASSIS_E2E_F1_URL names the F1 SQLite warehouse').toMatch(/^sqlite:/);
  // A panic in the WebAssembly app leaves the page dead: any one fails the journey.
  const panics: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && m.text().includes('panicked')) panics.push(m.text().slice(0, 600));
  });
  await signIn(page);

  // Create the project, testing the connection first.
  await page.getByRole('link', { name: 'New project' }).click();
  await expect(page.getByRole('heading', { name: 'New project', level: 1 })).toBeVisible();
  await hydrated(page);
  const name = `Formula 1 ${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Description').fill('World championship results since 1950');
  await page.getByLabel('Connection URL').fill(`${f1Url}.missing`);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('alert')).toContainText('cannot connect to the data source');
  await page.getByLabel('Connection URL').fill(f1Url);
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('13 table(s) readable');
  await expect(page.getByTestId('connection-result')).toContainText('drivers');
  await page.screenshot({ path: path.join(screenshots, 'project-new.png'), fullPage: true });
  await page.getByRole('button', { name: 'Create project' }).click();

  // Bootstrapped from the source: one object per table.
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}$/);
  const projectId = page.url().split('/').pop() ?? '';
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByTestId('draft-status')).toContainText('nothing published yet');
  const tree = page.getByTestId('ontology-tree');
  await expect(tree).toContainText('drivers');
  await expect(page.getByTestId('relationship-diagram').locator('g[data-object]')).toHaveCount(13);
  await hydrated(page);
  await page.screenshot({ path: path.join(screenshots, 'ontology-bootstrapped.png'), fullPage: true });

  // An element is relabelled, then removed after a second click.
  await tree.getByRole('button', { name: /^seasons\b/ }).click();
  await expect(page.getByTestId('element-detail')).toContainText('objects.seasons');
  const detail = page.getByTestId('element-detail');
  await detail.getByLabel('Label', { exact: true }).fill('Championship season');
  await detail.getByLabel('Description', { exact: true }).fill('One year of racing');
  await page.getByTestId('element-detail').getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('element-detail')).toContainText('One year of racing');
  await page.getByRole('button', { name: 'Remove…' }).click();
  await page.getByRole('button', { name: 'Click again to remove this object from the draft' }).click();
  await expect(page.getByTestId('relationship-diagram').locator('g[data-object]')).toHaveCount(12);
  await expect(tree.getByRole('button', { name: /^seasons\b/ })).toHaveCount(0);

  // The team's curated ontology replaces the bootstrap: import its YAML file.
  const curated = fs
    .readFileSync(path.join(repo, 'examples', 'f1', 'ontology.yaml'), 'utf8')
    .replaceAll('public.', '');
  await page.locator('input[type=file]').setInputFiles({
    name: 'f1.yaml',
    mimeType: 'text/yaml',
    buffer: Buffer.from(curated),
  });
  await expect(page.getByTestId('yaml-editor')).toHaveValue(/Formula 1 \(F1\) world championship/);
  await expect(page.getByTestId('problems')).toHaveText('No problems.');
  await page.getByRole('button', { name: 'Save draft' }).click();
  // The editor shows the saved draft: the curated objects, not the bootstrapped ones.
  await expect(tree).toContainText('race_result');
  await expect(page.getByTestId('relationship-diagram').locator('g[data-object]')).toHaveCount(12);

  // A YAML mistake is shown with its line while typing, and fixed.
  const editor = page.getByTestId('yaml-editor');
  const broken = curated.replace('table: drivers', 'table: "drivers; DROP TABLE x"');
  await editor.fill(broken);
  await expect(page.getByTestId('unsaved')).toBeVisible();
  await expect(page.getByTestId('problems')).toContainText('objects.driver.table');
  await expect(page.getByTestId('problems')).toContainText(/line \d+/);
  await editor.fill(curated);
  await expect(page.getByTestId('problems')).toHaveText('No problems.');

  // A synonym on the driver object, found with the tree's search.
  await page.getByLabel('Search the model').fill('driver');
  await tree.getByRole('button', { name: /^driver\b/ }).first().click();
  await expect(page.getByTestId('element-detail')).toContainText('Object');
  await page.getByLabel('New synonym').fill('pilot');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByTestId('synonyms')).toContainText('pilot');

  // A metric whose condition is not SQL is refused next to the field, then fixed.
  const metric = page.getByTestId('metric-form');
  await metric.getByLabel('Name', { exact: true }).fill('top_ten_finishes');
  await metric.getByLabel('Label', { exact: true }).fill('Top-ten finishes');
  await metric.getByLabel('Object', { exact: true }).selectOption('race_result');
  await metric.getByLabel('Aggregate').selectOption('count');
  await metric.getByLabel(/Conditions/).fill('position <=');
  await metric.getByLabel(/Synonyms/).fill('top tens, points finishes');
  await metric.getByRole('button', { name: 'Add metric' }).click();
  await expect(metric.getByRole('alert')).toContainText('position <=');
  await expect(metric.getByLabel('Name', { exact: true })).toHaveValue('top_ten_finishes');
  await metric.getByLabel(/Conditions/).fill('position <= 10');
  await metric.getByRole('button', { name: 'Add metric' }).click();
  await expect(page.getByText('Added to the draft.')).toBeVisible();
  // A rule needs its text, and a verified question SQL that only reads.
  const ruleForm = page.getByTestId('rule-form');
  await ruleForm.getByLabel('Name').fill('points_scoring');
  await ruleForm.getByRole('button', { name: 'Add rule' }).click();
  await expect(ruleForm.getByRole('alert')).toContainText('is empty: say what the rule is');
  await ruleForm.getByLabel('Rule').fill('Points go to the first ten finishers of a race.');
  await ruleForm.getByRole('button', { name: 'Add rule' }).click();
  await expect(ruleForm.getByRole('status')).toHaveText('Added to the draft.');
  const questionForm = page.getByTestId('question-form');
  await questionForm.getByLabel('Question').fill('How many races took place in 2022?');
  await questionForm.getByLabel('Approved SQL').fill('DELETE FROM races WHERE year = 2022');
  await questionForm.getByRole('button', { name: 'Add question' }).click();
  await expect(questionForm.getByRole('alert')).toContainText('the approved SQL');
  await expect(questionForm.getByLabel('Question')).toHaveValue('How many races took place in 2022?');
  await questionForm.getByLabel('Approved SQL').fill('SELECT COUNT(*) FROM races WHERE year = 2022');
  await questionForm.getByRole('button', { name: 'Add question' }).click();
  await expect(questionForm.getByRole('status')).toHaveText('Added to the draft.');
  await page.getByLabel('Search the model').fill('took place');
  await expect(tree).toContainText('How many races took place in 2022?');
  await page.getByLabel('Search the model').fill('top ten');
  await expect(tree).toContainText('top_ten_finishes');
  await page.getByLabel('Search the model').fill('');
  await page.screenshot({ path: path.join(screenshots, 'ontology-editor.png'), fullPage: true });

  // Publish: the diff, the verified questions under the draft, a note.
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Publish' }).click();
  await expect(page.getByTestId('changes')).toContainText('+ metric top_ten_finishes');
  await expect(page.getByTestId('regression-summary')).toContainText('answer as before or better', { timeout: 60_000 });
  await hydrated(page);
  await page.getByLabel(/Note/).fill('The curated F1 ontology, with top-ten finishes');
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByText('Published version 1.')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('versions')).toContainText('The curated F1 ontology, with top-ten finishes');
  await page.screenshot({ path: path.join(screenshots, 'publish.png'), fullPage: true });

  // The seed's three questions in the playground.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground' }).click();
  await hydrated(page);
  await page.getByLabel('Project').selectOption({ label: name });
  const turns = page.getByTestId('turn');
  await page.getByLabel('Question').fill('Who won the most races in 2023?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns.nth(0).getByTestId('status')).toHaveText('answered', { timeout: 60_000 });
  await expect(turns.nth(0).getByTestId('answer')).toContainText('Max Verstappen');
  await expect(turns.nth(0).getByTestId('answer')).toContainText('19');
  await expect(turns.nth(0).getByTestId('chart')).toContainText('Max Verstappen');

  await page.getByRole('button', { name: 'New chat' }).click();
  await page.getByLabel('Question').fill('Compare total points scored by all drivers in 2022 vs 2023, including sprint results.');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns.nth(0).getByTestId('status')).toHaveText('needs approval', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Approve and run' }).click();
  await expect(turns.nth(1).getByTestId('status')).toHaveText('answered', { timeout: 60_000 });
  await expect(turns.nth(1).getByTestId('answer')).toContainText('2,458');
  await page.getByLabel('Follow up').fill('Now break it down by constructor for 2023');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns.nth(2).getByTestId('status')).toHaveText('answered', { timeout: 60_000 });
  await expect(turns.nth(2).getByTestId('results')).toContainText('Red Bull');
  await page.screenshot({ path: path.join(screenshots, 'playground-f1.png'), fullPage: true });

  // An agent asks a question of its own through the Python MCP SDK.
  let agentKey = '';
  const keyName = `F1 journey agent ${Date.now()}`;
  expect(python, 'CASSIS_TEST_PYTHON names the Python with the mcp SDK').not.toBe('');
  {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await hydrated(page);
    await page.getByLabel('Name').fill(keyName);
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = ((await page.getByTestId('new-key-secret').textContent()) ?? '').trim();
    agentKey = secret;
    expect(secret).toMatch(/^sk-k6-/);
    const script = JSON.stringify([
      { tool: 'ask_question', arguments: { project_id: projectId, question: 'How many races were there in 2023?' } },
    ]);
    const report = JSON.parse(
      execFileSync(python, [
        path.join(repo, 'server', 'tests', 'mcp_clients', 'sdk_client.py'),
        new URL('/mcp/', page.url()).toString(),
        secret,
        'auto',
        script,
      ]).toString(),
    );
    expect(report.calls[0].structured.status).toBe('answered');
    expect(report.calls[0].structured.results.rows[0][0]).toBe(22);
    expect(report.calls[0].structured.ontology_version).toBe(1);
  }

  // Activity shows the chats, the agent's among them; a good answer becomes a verified question.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
  await hydrated(page);
  const seedChat = page.getByTestId('activity-chat').filter({ hasText: 'Who won the most races in 2023?' }).filter({ hasText: name }).first();
  await seedChat.getByRole('button', { name: 'Open' }).click();
  await seedChat.getByRole('button', { name: 'Make it a verified question' }).click();
  await expect(seedChat.getByRole('status')).toHaveText('The draft has this verified question already.');
  const agentChat = page.getByTestId('activity-chat').filter({ hasText: 'How many races were there in 2023?' }).filter({ hasText: name });
  await expect(agentChat).toContainText(' mcp ');
  await agentChat.getByRole('button', { name: 'Open' }).click();
  await agentChat.getByRole('button', { name: 'Make it a verified question' }).click();
  await expect(agentChat.getByRole('status')).toContainText('Added to the draft as a verified question');
  await page.getByLabel('Asked by').selectOption({ label: email });
  await expect(agentChat).toBeVisible();
  await page.screenshot({ path: path.join(screenshots, 'activity-f1.png'), fullPage: true });

  // Revoked, the agent's key stops working.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await hydrated(page);
  await page.getByTestId('api-keys').getByRole('row', { name: new RegExp(keyName) }).getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByTestId('api-keys').getByRole('row', { name: new RegExp(keyName) })).toContainText('revoked');
  await expect
    .poll(async () => (await page.request.post('/mcp/', {
      headers: { Authorization: `Bearer ${agentKey}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      data: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } },
    })).status(), { timeout: 15_000 })
    .toBe(401);

  // The next publish checks it: the same answer under the draft and under version 1.
  await page.goto(`/projects/${projectId}/publish`);
  await expect(page.getByTestId('changes')).toContainText('+ verified question How many races were there in 2023?');
  const check = page.getByTestId('regressions').getByRole('listitem').filter({ hasText: 'How many races were there in 2023?' });
  await expect(check).toContainText('unchanged', { timeout: 60_000 });
  await expect(page.getByTestId('regression-summary')).toContainText('All 6 question(s) answer as before or better');

  // A change that alters a verified answer is caught, and publishing over it needs a confirmation.
  await page.goto(`/projects/${projectId}`);
  await hydrated(page);
  const yaml = await page.getByTestId('yaml-editor').inputValue();
  // The wins metric's condition: the first `position = 1` among the
  // metrics (named filters of the standings have one too).
  const metricsAt = yaml.indexOf('\nmetrics:');
  expect(metricsAt).toBeGreaterThan(0);
  expect(yaml.slice(metricsAt)).toContain('position = 1');
  const edited = yaml.slice(0, metricsAt) + yaml.slice(metricsAt).replace('position = 1', 'position = 2');
  await page.getByTestId('yaml-editor').fill(edited);
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByText('Draft saved.')).toBeVisible();
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Publish' }).click();
  const regressed = page.getByTestId('regressions').getByRole('listitem').filter({ hasText: 'Who won the most races in 2023?' });
  await expect(regressed).toContainText('changes', { timeout: 60_000 });
  await expect(page.getByTestId('regression-summary')).toContainText('would change or fail');
  await hydrated(page);
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('confirm to publish anyway', { timeout: 60_000 });
  await expect(page.getByTestId('versions').locator('tbody tr')).toHaveCount(1);
  await page.screenshot({ path: path.join(screenshots, 'publish-regression.png'), fullPage: true });
  await page.getByLabel('Publish even if verified questions would get a different answer').check();
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByText('Published version 2.')).toBeVisible({ timeout: 60_000 });

  // Rolling back publishes version 1's content as version 3.
  await page.getByRole('button', { name: 'Roll back to v1' }).click();
  await expect(page.getByText('Rolled back: published as version 3')).toBeVisible();
  await expect(page.getByTestId('versions')).toContainText('Roll back to version 1');
  await page.getByLabel('from').selectOption('1');
  await page.getByLabel('to').selectOption('2');
  await page.getByRole('button', { name: 'Show differences' }).click();
  await expect(page.getByTestId('changes').last()).toContainText('~ metric wins');

  // The playground can try an older version: version 2 counted second places as wins.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Playground' }).click();
  await hydrated(page);
  await page.getByLabel('Project').selectOption({ label: name });
  await page.getByLabel('Ontology version').selectOption({ label: 'Version 2' });
  await page.getByLabel('Question').fill('Who won the most races in 2023?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(turns.nth(0)).toContainText('ontology v2', { timeout: 60_000 });
  await expect(turns.nth(0).getByTestId('answer')).not.toContainText('Max Verstappen won 19');

  // Settings: the stored connection is kept when the URL is left blank; deleting asks for the name.
  await page.goto(`/projects/${projectId}/settings`);
  await hydrated(page);
  await expect(page.getByLabel('Connection URL')).toHaveAttribute('placeholder', /leave blank to keep/);
  await page.getByLabel('Description').fill('Every Grand Prix since 1950');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByTestId('connection-result')).toContainText('13 table(s) readable');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect(page.getByLabel('Everyone in the organization')).toBeChecked();
  await page.screenshot({ path: path.join(screenshots, 'project-settings.png'), fullPage: true });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
  await expect(page.getByTestId('projects')).toContainText('Every Grand Prix since 1950');
  await page.goto(`/projects/${projectId}/settings`);
  await hydrated(page);
  await page.getByLabel(/to confirm/).fill('Formula One');
  await page.getByRole('button', { name: 'Delete project' }).click();
  await expect(page.getByRole('alert')).toContainText(`Type the project's name, ${name}, to confirm.`);
  await page.getByLabel(/to confirm/).fill(name);
  await page.getByRole('button', { name: 'Delete project' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByTestId('projects')).not.toContainText(name);
  expect(panics).toEqual([]);
});
