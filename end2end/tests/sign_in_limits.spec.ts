import { test, expect } from '@playwright/test';
import { openLoginPage, submitSignIn } from './session';

// Last of the specs (by name): its wrong guesses spend a few of the address's
// quick sign-in attempts, which the other specs' sign-ins need.
test('after too many wrong passwords the login page says when to try again', async ({ page }) => {
  // An account of its own: the admin's stays free for the other specs.
  const account = `guesser-${Date.now()}@example.com`;
  await openLoginPage(page);
  const statuses: number[] = [];
  page.on('response', (response) => {
    if (response.url().endsWith('/api/login')) statuses.push(response.status());
  });
  // The first wrong passwords are each checked and refused as wrong; once
  // they pass the free ones, the account waits longer after each, and an
  // attempt during the wait is not checked at all.
  for (let attempt = 1; attempt <= 8 && statuses.at(-1) !== 429; attempt++) {
    await submitSignIn(page, { email: account, password: `wrong guess ${attempt}` });
    await expect.poll(() => statuses.length).toBe(attempt);
    if (statuses.at(-1) === 401) {
      await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');
    }
  }
  expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(4);
  expect(statuses.at(-1)).toBe(429);
  await expect(page.getByRole('alert')).toHaveText(
    /^Too many sign-in attempts\. Try again in \d+ seconds?\.$/,
  );
  await expect(page).toHaveURL(/\/login$/);
});
