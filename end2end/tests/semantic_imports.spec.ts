import { test, expect } from '@playwright/test';
import { signIn } from './session';
import { emptyProject, repo } from './projects';
import * as path from 'node:path';

// A data team that already has a semantic layer brings it into the editor:
// a dbt project's files chosen together, or a Snowflake Cortex Analyst
// semantic model. The editor shows the converted draft and a warning for
// each item Cassis could not carry over; saving it is the import.

const wholesale = path.join(repo, 'examples', 'wholesale');

test('a dbt project\'s semantic layer files import into the draft, with a warning per item left out', async ({ page }) => {
  await signIn(page);
  const projectId = await emptyProject(page, `Wholesale from dbt ${Date.now()}`);
  const folder = path.join(wholesale, 'dbt', 'models', 'semantic');
  await page.getByTestId('import-file').setInputFiles(
    ['orders.yml', 'customers.yml', 'geography.yml', 'line_items.yml', 'metrics.yml', 'saved_queries.yml'].map((f) =>
      path.join(folder, f),
    ),
  );

  const warnings = page.getByTestId('import-warnings');
  await expect(warnings).toContainText('Imported with 11 warning(s): review them, then save the draft.');
  await expect(warnings.getByRole('listitem')).toHaveCount(11);
  for (const warning of [
    'metrics.yml:68: metrics.revenue_growth_yoy: a period-over-period metric (offset_window)',
    'metrics.yml:93: metrics.order_to_return: a conversion metric has no Cassis equivalent; not imported',
    'orders.yml:50: semantic_models.order.measures.median_order_value: `agg: median` has no Cassis aggregate yet',
    "saved_queries.yml:28: saved_queries.high_priority_revenue: its where `{{ Dimension('order__order_priority') }} LIKE '1-%'`",
  ]) {
    await expect(warnings.getByRole('listitem').filter({ hasText: warning })).toHaveCount(1);
  }
  // Converted, not yet saved: the editor holds it, the tree still the empty draft.
  const editor = page.getByTestId('yaml-editor');
  await expect(editor).toHaveValue(/- name: average_revenue_per_order\n/);
  await expect(editor).toHaveValue(/question: What is revenue by region\?/);
  await expect(page.getByTestId('unsaved')).toBeVisible();
  await expect(page.getByTestId('problems')).toHaveText('No problems.');
  const tree = page.getByTestId('ontology-tree');
  await expect(tree).not.toContainText('average_revenue_per_order');

  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByText('Draft saved.')).toBeVisible();
  for (const metric of ['revenue', 'order_count', 'average_revenue_per_order', 'urgent_order_share']) {
    await expect(tree.getByRole('button', { name: new RegExp(`^${metric}\\b`) })).toHaveCount(1);
  }
  await expect(tree).not.toContainText('order_to_return');
  await tree.getByRole('button', { name: /^average_revenue_per_order\b/ }).click();
  await expect(page.getByTestId('element-detail')).toContainText('revenue / order_count');

  // The draft against nothing published: the imported metrics and questions.
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Publish' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/publish$`));
  const changes = page.getByTestId('changes');
  await expect(changes).toContainText('+ metric average_revenue_per_order');
  await expect(changes).toContainText('+ verified question What is revenue by region?');
  // A running total to date by year, which Cassis has.
  await expect(changes).toContainText('+ metric cumulative_revenue');
  await expect(changes).not.toContainText('order_to_return');
});

test('a Snowflake Cortex semantic model imports into the draft, with its warnings listed', async ({ page }) => {
  await signIn(page);
  await emptyProject(page, `Wholesale from Cortex ${Date.now()}`);
  await page.getByTestId('import-file').setInputFiles(path.join(wholesale, 'cortex.yaml'));

  const warnings = page.getByTestId('import-warnings');
  await expect(warnings).toContainText(/Imported with \d+ warning\(s\): review them, then save the draft\./);
  for (const warning of [
    'cortex.yaml:46: tables.nation.dimensions.nation_name: its Cortex Search service has no Cassis equivalent; not imported',
    'cortex.yaml:194: tables.line_item.metrics.revenue_margin_estimate: `SUM(net_amount) - SUM(quantity) * 10` is not one aggregate',
  ]) {
    await expect(warnings.getByRole('listitem').filter({ hasText: warning })).toHaveCount(1);
  }
  // Its named filter is the orders' own now, with no warning. (The
  // warnings are shown until the draft is saved.)
  await expect(warnings).not.toContainText('tables.orders.filters.urgent');
  await expect(page.getByTestId('problems')).toHaveText('No problems.');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByText('Draft saved.')).toBeVisible();

  // Its logical tables are objects, its metrics Cassis metrics, a ratio among them.
  const tree = page.getByTestId('ontology-tree');
  for (const name of ['orders', 'line_item', 'order_count', 'revenue', 'average_revenue_per_order']) {
    await expect(tree.getByRole('button', { name: new RegExp(`^${name}\\b`) }).first()).toBeVisible();
  }
  await tree.getByRole('button', { name: /^average_revenue_per_order\b/ }).click();
  await expect(page.getByTestId('element-detail')).toContainText('revenue / order_count');
  await expect(page.getByTestId('element-detail')).toContainText('Net revenue divided by the number of orders.');
  await page.getByLabel('Search the model').fill('urgent');
  await expect(tree).toContainText('urgent');
});
