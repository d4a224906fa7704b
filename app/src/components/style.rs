//! Tailwind classes the pages share, so a button looks the same everywhere.

pub const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm \
                         focus:border-purple-600 focus:outline-none focus:ring-1 focus:ring-purple-600";
pub const LABEL: &str = "block text-sm font-medium text-slate-700";
pub const BUTTON: &str = "rounded-md bg-purple-700 px-3 py-2 text-sm font-semibold text-white shadow-sm \
                          hover:bg-purple-800 disabled:opacity-60";
pub const SECONDARY: &str = "rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-semibold \
                             text-slate-700 shadow-sm hover:bg-slate-50 disabled:opacity-60";
pub const DANGER: &str = "rounded-md bg-red-700 px-3 py-2 text-sm font-semibold text-white shadow-sm \
                          hover:bg-red-800 disabled:opacity-60";
pub const SMALL: &str = "rounded-md border border-slate-300 px-3 py-1 text-xs font-semibold text-slate-700 hover:bg-slate-50";
pub const CARD: &str = "rounded-lg border border-slate-200 bg-white p-5 shadow-sm";
pub const CARD_TITLE: &str = "text-base font-semibold text-slate-900";
pub const FIELD_ERROR: &str = "mt-1 text-xs text-red-700";
pub const SUCCESS: &str =
    "rounded-md border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900";
