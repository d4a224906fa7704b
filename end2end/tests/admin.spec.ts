import { test, expect } from '@playwright/test';
import { email, openLoginPage, submitSignIn } from './session';
import * as path from 'node:path';

const screenshots = path.join(__dirname, '..', 'screenshots');

test('a visitor without a session is sent to the login page', async ({ page }) => {
  await page.goto('/projects');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole('heading', { name: 'Sign in to Cassis' })).toBeVisible();
});

test('a wrong password is refused in place, keeping the email typed', async ({ page }) => {
  await openLoginPage(page);
  await submitSignIn(page, { email, password: 'not-the-password' });
  await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByLabel('Email')).toHaveValue(email);
});

test('an admin signs in, finds the demo project, moves around and signs out', async ({ page, context }) => {
  await openLoginPage(page);
  // Tailwind's stylesheet is served and applied.
  const buttonColor = await page
    .getByRole('button', { name: 'Sign in' })
    .evaluate((button) => getComputedStyle(button).backgroundColor);
  expect(buttonColor).not.toBe('rgba(0, 0, 0, 0)');

  await submitSignIn(page);

  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole('heading', { name: 'Projects' })).toBeVisible();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Projects' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('projects')).toContainText('Wholesale');
  await expect(page.getByTestId('projects')).toContainText('sqlite · connected');
  await expect(page.getByTestId('signed-in-as')).toContainText(email);

  const cookie = (await context.cookies()).find((c) => c.name === 'cassis_session');
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe('Lax');

  await page.screenshot({ path: path.join(screenshots, 'projects.png'), fullPage: true });

  // Navigation happens in the hydrated app, without reloading the page.
  await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
  for (const [link, heading] of [
    ['API keys', 'API keys'],
    ['Users', 'Users'],
    ['Settings', 'Settings'],
    ['Projects', 'Projects'],
  ]) {
    await nav.getByRole('link', { name: link }).click();
    await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
  }
  await page.getByRole('link', { name: 'Users' }).click();
  await expect(page.getByTestId('users')).toContainText(email);
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByText(/\/mcp\/$/)).toBeVisible();
  await nav.getByRole('link', { name: 'Connect', exact: true }).click();
  const mcpUrl = `${new URL(page.url()).origin}/mcp/`;
  await expect(page.getByTestId('mcp-url')).toHaveText(mcpUrl);
  await expect(page.getByTestId('claude-code-command')).toHaveText(`claude mcp add --transport http cassis ${mcpUrl}`);
  await page.screenshot({ path: path.join(screenshots, 'connect.png'), fullPage: true });
  expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/projects');
  await expect(page).toHaveURL(/\/login$/);
  await page.screenshot({ path: path.join(screenshots, 'login.png'), fullPage: true });
});
