import { expect, type Page } from '@playwright/test';

// Signing in, once for every spec: the login page as a person uses it.

export type Account = { email: string; password: string };

/** The admin scripts/test starts the server with. */
export const admin: Account = {
  email: process.env.CASSIS_E2E_EMAIL ?? 'admin@example.com',
  password: process.env.CASSIS_E2E_PASSWORD ?? '',
};
export const { email, password } = admin;

/** Waits until the WebAssembly app has hydrated the page (it sets the attribute). */
export async function hydrated(page: Page) {
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
}

/**
 * Opens the login page, interactive: a click before hydration would post the
 * form natively and show the server function's bare answer.
 */
export async function openLoginPage(page: Page) {
  await page.goto('/login');
  await hydrated(page);
}

/**
 * Fills the login form already on screen and submits it; where the page
 * goes next (the projects, back to a consent page, an alert) is the
 * caller's to check.
 */
export async function submitSignIn(page: Page, account: Account = admin) {
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs `account` (the admin by default) in through the login page; ends on the projects page. */
export async function signIn(page: Page, account: Account = admin) {
  await openLoginPage(page);
  await submitSignIn(page, account);
  await expect(page).toHaveURL(/\/projects$/);
}
