import { expect, type Page } from '@playwright/test';

// The admin scripts/test starts the server with.
export const email = process.env.CASSIS_E2E_EMAIL ?? 'admin@example.com';
export const password = process.env.CASSIS_E2E_PASSWORD ?? '';

/** Signs the admin in through the login page, as a person would. */
export async function signIn(page: Page) {
  await page.goto('/login');
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/projects$/);
}

/** Waits until the WebAssembly app has hydrated the page (it sets the attribute). */
export async function hydrated(page: Page) {
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
}
