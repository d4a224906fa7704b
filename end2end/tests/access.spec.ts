import { test, expect } from '@playwright/test';
import { email, hydrated, signIn, submitSignIn } from './session';
import * as path from 'node:path';

const screenshots = path.join(__dirname, '..', 'screenshots');

const pingBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'ping', arguments: {} },
});

test('an admin creates an API key, an agent uses it, the admin revokes it', async ({ page, request }) => {
  await signIn(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByRole('heading', { name: 'API keys', level: 1 })).toBeVisible();

  // A blank name is refused in place, keeping what was typed.
  await page.getByLabel('Name').fill('   ');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('alert')).toContainText('Give the key a name');
  await expect(page.getByLabel('Name')).toHaveValue('   ');

  const name = `Playwright agent ${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Expires after').selectOption('30d');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.getByTestId('new-key-secret').textContent()) ?? '';
  expect(secret).toMatch(/^sk-k6-[A-Za-z0-9_-]{43}$/);
  await expect(page.getByTestId('mcp-command')).toContainText(
    `claude mcp add --transport http cassis ${new URL(page.url()).origin}/mcp/ --header "Authorization: Bearer ${secret}"`,
  );
  await expect(page.getByTestId('api-keys')).toContainText(name);
  await page.screenshot({ path: path.join(screenshots, 'api-keys.png'), fullPage: true });

  // The key works on the MCP endpoint.
  const call = () =>
    request.post('/mcp/', {
      headers: {
        Authorization: `Bearer ${secret}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
      },
      data: pingBody,
    });
  const first = await call();
  expect(first.status()).toBe(200);
  expect((await first.json()).result.structuredContent).toEqual({ status: 'ok', server: 'cassis' });

  // Revoked, it stops working within seconds; the list says so, and the
  // secret is not shown again after a reload.
  const row = page.getByTestId('api-keys').getByRole('row', { name: new RegExp(name) });
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('revoked');
  await expect.poll(async () => (await call()).status(), { timeout: 15_000 }).toBe(401);
  await page.reload();
  await expect(page.getByTestId('api-keys')).toContainText(name);
  await expect(page.getByText(secret)).toHaveCount(0);
});

test('an MCP client is approved on the consent page and listed as connected', async ({ page, request }) => {
  const redirect = 'http://127.0.0.1:45454/callback';
  const registered = await request.post('/oauth/register', {
    data: { client_name: 'Playwright MCP client', redirect_uris: [redirect] },
  });
  expect(registered.status()).toBe(201);
  const clientId = (await registered.json()).client_id;
  const base = test.info().project.use.baseURL ?? 'http://127.0.0.1:3000';
  const authorize = new URL('/oauth/authorize', base);
  for (const [key, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'browser-state',
    resource: new URL('/mcp/', base).toString(),
  })) {
    authorize.searchParams.set(key, value);
  }
  // The client's loopback listener, as a native app would run it.
  await page.route(`${redirect}**`, (route) => route.fulfill({ body: 'You can close this window.' }));

  // Signed out: the login page first, then back to the consent page.
  await page.goto(authorize.toString());
  await expect(page).toHaveURL(/\/login\?next=/);
  await hydrated(page);
  await submitSignIn(page);
  await expect(page.getByRole('heading', { name: 'Connect Playwright MCP client to Cassis?' })).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();
  await page.screenshot({ path: path.join(screenshots, 'oauth-consent.png'), fullPage: true });
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page).toHaveURL(/\/callback\?code=[^&]+&state=browser-state&iss=/);

  // The code exchange with the RFC 7636 example verifier.
  const code = new URL(page.url()).searchParams.get('code') ?? '';
  const tokens = await request.post('/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: redirect,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    },
  });
  expect(tokens.status()).toBe(200);

  await page.goto('/clients');
  await expect(page.getByTestId('connected-clients')).toContainText('Playwright MCP client');
  await page.screenshot({ path: path.join(screenshots, 'connected-clients.png'), fullPage: true });
  const row = page.getByTestId('connected-clients').getByRole('row', { name: /Playwright MCP client/ });
  await row.getByRole('button', { name: 'Disconnect' }).click();
  await expect(row).toContainText('disconnected');
});

test('an admin adds a viewer, who can ask but not manage; disabling ends their access', async ({ page, browser }) => {
  await signIn(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
  await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();
  const viewerEmail = `viewer-${Date.now()}@example.com`;
  await page.getByLabel('Email').fill(viewerEmail);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Add user' }).click();
  const viewerPassword = (await page.getByTestId('added-password').textContent()) ?? '';
  expect(viewerPassword).toHaveLength(24);
  await expect(page.getByTestId('users')).toContainText(viewerEmail);
  await page.screenshot({ path: path.join(screenshots, 'users.png'), fullPage: true });

  // Adding the same email again is refused in place.
  await page.getByLabel('Email').fill(viewerEmail);
  await page.getByRole('button', { name: 'Add user' }).click();
  await expect(page.getByRole('alert')).toContainText('already has an account');

  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await signIn(viewer, { email: viewerEmail, password: viewerPassword });
  const viewerNav = viewer.getByRole('navigation', { name: 'Main' });
  await expect(viewerNav.getByRole('link', { name: 'Playground' })).toBeVisible();
  await expect(viewerNav.getByRole('link', { name: 'API keys' })).toHaveCount(0);
  await expect(viewerNav.getByRole('link', { name: 'Users' })).toHaveCount(0);
  for (const adminOnly of ['/keys', '/users']) {
    await viewer.goto(adminOnly);
    await expect(viewer.getByRole('alert')).toHaveText('Only an admin can see this.');
  }
  await viewer.goto('/playground');
  await expect(viewer.getByRole('heading', { name: 'Playground', level: 1 })).toBeVisible();

  // The viewer reads the ontology but cannot reach its editing controls, nor a project's settings.
  await viewer.goto('/projects');
  await expect(viewer.getByRole('link', { name: 'New project' })).toHaveCount(0);
  await viewer.getByTestId('projects').getByRole('link', { name: 'Wholesale' }).click();
  await expect(viewer.getByText('You can read this ontology; only editors and admins change it.')).toBeVisible();
  await expect(viewer.getByTestId('ontology-tree')).toContainText('customer');
  await expect(viewer.getByRole('button', { name: 'Save draft' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Add metric' })).toHaveCount(0);
  await expect(viewer.getByTestId('yaml-editor')).toHaveAttribute('readonly', '');
  await viewer.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Publish' }).click();
  await expect(viewer.getByRole('button', { name: 'Publish', exact: true })).toHaveCount(0);
  await viewer.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Settings' }).click();
  await expect(viewer.getByText('Only an admin can change the data source or delete the project.')).toBeVisible();
  await viewer.goto('/projects/new');
  // Hydrated first: a click before it posts the form natively, and the
  // browser shows the server function's bare answer instead of the alert.
  await hydrated(viewer);
  await viewer.getByLabel('Name').fill('Not allowed');
  await viewer.getByLabel('Connection URL').fill('sqlite:///tmp/x.sqlite');
  await viewer.getByRole('button', { name: 'Create project' }).click();
  await expect(viewer.getByRole('alert')).toHaveText('Only an admin can see this.');

  // Disabled, the viewer's session stops working.
  const row = page.getByTestId('users').getByRole('row', { name: new RegExp(viewerEmail) });
  await row.getByRole('button', { name: 'Disable' }).click();
  await expect(row).toContainText('disabled');
  await viewer.goto('/projects');
  await expect(viewer).toHaveURL(/\/login$/);
  await viewerContext.close();
});
