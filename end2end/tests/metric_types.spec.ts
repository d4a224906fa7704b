import { test, expect } from '@playwright/test';
import { signIn } from './session';
import { wholesaleProject } from './projects';

// The metric form offers every metric type (a ratio, a derived metric, a
// growth, a running total), each with only the fields it takes, and says
// next to a field what is wrong with it.

test('a ratio metric is added through the form, its wrong denominator named next to the field', async ({ page }) => {
  await signIn(page);
  await wholesaleProject(page, `Wholesale metrics ${Date.now()}`);

  const form = page.getByTestId('metric-form');
  // A simple metric's fields, until another type is chosen.
  await expect(form.getByLabel('Aggregate')).toBeVisible();
  await expect(form.getByLabel(/Denominator/)).toBeHidden();
  await form.getByLabel('Name', { exact: true }).fill('revenue_per_customer');
  await form.getByLabel('Label', { exact: true }).fill('Revenue per customer');
  await form.getByLabel('Type').selectOption('ratio');
  await expect(form.getByLabel('Aggregate')).toBeHidden();
  await expect(form.getByLabel(/Conditions/)).toBeHidden();
  await form.getByLabel('Object', { exact: true }).selectOption('customer');
  await form.getByLabel(/Numerator/).fill('revenue');
  await form.getByLabel(/Denominator/).fill('customer_cuont');
  await form.getByLabel(/Synonyms/).fill('average revenue per customer');
  await form.getByRole('button', { name: 'Add metric' }).click();

  // Refused next to the denominator; the rest of the form is as typed.
  const denominator = form.locator('div').filter({ has: page.getByLabel(/Denominator/) });
  await expect(denominator.getByRole('alert')).toHaveText('there is no metric named `customer_cuont`');
  await expect(form.getByRole('alert')).toHaveCount(1);
  await expect(form.getByLabel('Name', { exact: true })).toHaveValue('revenue_per_customer');
  await expect(form.getByLabel(/Numerator/)).toHaveValue('revenue');
  await expect(page.getByTestId('ontology-tree')).not.toContainText('revenue_per_customer');

  await form.getByLabel(/Denominator/).fill('customer_count');
  await form.getByRole('button', { name: 'Add metric' }).click();
  await expect(form.getByRole('status')).toHaveText('Added to the draft.');

  // In the tree, and in the draft's YAML as a ratio of the two metrics.
  const tree = page.getByTestId('ontology-tree');
  await page.getByLabel('Search the model').fill('per customer');
  await expect(tree).toContainText('revenue_per_customer');
  await tree.getByRole('button', { name: /^revenue_per_customer\b/ }).click();
  await expect(page.getByTestId('element-detail')).toContainText('revenue / customer_count');
  await expect(page.getByTestId('yaml-editor')).toHaveValue(
    /- name: revenue_per_customer\n\s+object: customer\n\s+type: ratio\n\s+numerator: revenue\n\s+denominator: customer_count\n/,
  );
});

test('a growth, a running total and a derived metric each take their own fields', async ({ page }) => {
  await signIn(page);
  await wholesaleProject(page, `Wholesale periods ${Date.now()}`);
  const form = page.getByTestId('metric-form');
  const add = async (name: string) => {
    await form.getByRole('button', { name: 'Add metric' }).click();
    await expect(form.getByRole('status')).toHaveText('Added to the draft.');
    await expect(page.getByTestId('yaml-editor')).toHaveValue(new RegExp(`- name: ${name}\\n`));
  };

  // A growth needs what it is of; its period is chosen.
  await form.getByLabel('Name', { exact: true }).fill('order_growth');
  await form.getByLabel('Type').selectOption('growth');
  await form.getByLabel('Object', { exact: true }).selectOption('order');
  await expect(form.getByLabel(/^Period/)).toBeVisible();
  await expect(form.getByLabel(/To date/)).toBeHidden();
  await form.getByLabel(/^Period/).selectOption('quarter');
  await form.getByRole('button', { name: 'Add metric' }).click();
  const of = form.locator('div').filter({ has: page.getByLabel(/^Of/) });
  await expect(of.getByRole('alert')).toContainText('a growth needs `of`');
  await form.getByLabel(/^Of/).fill('order_count');
  await add('order_growth');
  await expect(page.getByTestId('yaml-editor')).toHaveValue(/- name: order_growth\n\s+object: order\n\s+type: growth\n\s+of: order_count\n\s+period: quarter\n/);

  // A running total of what does not add up is refused at `of`.
  await form.getByLabel('Name', { exact: true }).fill('orders_year_to_date');
  await form.getByLabel('Type').selectOption('cumulative');
  await form.getByLabel('Object', { exact: true }).selectOption('order');
  await expect(form.getByLabel(/^Period/)).toBeHidden();
  await form.getByLabel(/To date/).selectOption('year');
  await form.getByLabel(/^Of/).fill('average_order_value');
  await form.getByRole('button', { name: 'Add metric' }).click();
  await expect(of.getByRole('alert')).toContainText('does not add up');
  await form.getByLabel(/^Of/).fill('order_count');
  await add('orders_year_to_date');
  await expect(page.getByTestId('yaml-editor')).toHaveValue(/- name: orders_year_to_date\n\s+object: order\n\s+type: cumulative\n\s+of: order_count\n\s+to_date: year\n/);

  // A derived metric's expression is over metrics' names.
  await form.getByLabel('Name', { exact: true }).fill('revenue_less_order_value');
  await form.getByLabel('Type').selectOption('derived');
  await form.getByLabel('Object', { exact: true }).selectOption('line_item');
  await form.getByLabel("Expression (SQL over metrics' names)").fill('revenue - laps');
  await form.getByRole('button', { name: 'Add metric' }).click();
  const expression = form.locator('div').filter({ has: page.getByLabel(/^Expression/) });
  await expect(expression.getByRole('alert')).toContainText('`laps` is not a metric');
  await form.getByLabel("Expression (SQL over metrics' names)").fill('revenue - quantity_shipped');
  await add('revenue_less_order_value');
  await expect(page.getByTestId('yaml-editor')).toHaveValue(/- name: revenue_less_order_value\n\s+object: line_item\n\s+type: derived\n\s+expr: revenue - quantity_shipped\n/);
});

test('a rolling window and a level read at one time each take their own fields', async ({ page }) => {
  await signIn(page);
  await wholesaleProject(page, `Wholesale windows ${Date.now()}`);
  const form = page.getByTestId('metric-form');
  // A simple metric may be a level; only a running total rolls.
  await expect(form.getByLabel(/^Read at/)).toBeVisible();
  await expect(form.getByLabel(/^Rolling window/)).toBeHidden();

  await form.getByLabel('Name', { exact: true }).fill('orders_last_3_periods');
  await form.getByLabel('Type').selectOption('cumulative');
  await form.getByLabel('Object', { exact: true }).selectOption('order');
  await expect(form.getByLabel(/^Read at/)).toBeHidden();
  await form.getByLabel(/^Of/).fill('order_count');
  await form.getByLabel(/^Rolling window/).fill('1');
  await form.getByRole('button', { name: 'Add metric' }).click();
  const window = form.locator('div').filter({ has: page.getByLabel(/^Rolling window/) });
  await expect(window.getByRole('alert')).toHaveText('a rolling window spans at least 2 periods');
  await form.getByLabel(/^Rolling window/).fill('3');
  await form.getByRole('button', { name: 'Add metric' }).click();
  await expect(form.getByRole('status')).toHaveText('Added to the draft.');
  await expect(page.getByTestId('yaml-editor')).toHaveValue(
    /- name: orders_last_3_periods\n\s+object: order\n\s+type: cumulative\n\s+of: order_count\n\s+window: 3\n/,
  );

  // A level is read at a time attribute: another attribute is named as wrong.
  await form.getByLabel('Name', { exact: true }).fill('latest_order_value');
  await form.getByLabel('Type').selectOption('simple');
  await form.getByLabel('Object', { exact: true }).selectOption('order');
  await form.getByLabel('Aggregate').selectOption('sum');
  await form.getByLabel("Expression (SQL over the object's columns)").fill('o_totalprice');
  await form.getByLabel(/^Read at/).fill('order_priority');
  await form.getByRole('button', { name: 'Add metric' }).click();
  const level = form.locator('fieldset');
  await expect(level.getByRole('alert')).toContainText('`order_priority` is not a time attribute of `order`');
  await form.getByLabel(/^Read at/).fill('order_date');
  await form.getByLabel('Per period, its').selectOption('last');
  await form.getByRole('button', { name: 'Add metric' }).click();
  await expect(form.getByRole('status')).toHaveText('Added to the draft.');
  await expect(page.getByTestId('yaml-editor')).toHaveValue(
    /- name: latest_order_value\n\s+object: order\n\s+aggregate: sum\n\s+expr: o_totalprice\n\s+semi_additive:\n\s+time: order_date\n/,
  );
});
