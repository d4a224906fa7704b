//! Countries and the adjectives for their people: "drivers from Finland" ask
//! for the nationality "Finnish", and "German customers" for the nation
//! "GERMANY". Data hold one form or the other; questions use either.

use crate::engine::text;
use std::collections::HashMap;
use std::sync::LazyLock;

/// Each country's names, then the adjectives of its people. The first name
/// and adjective are the common ones; the rest are other spellings people use.
const COUNTRIES: &[(&[&str], &[&str])] = &[
    (&["Algeria"], &["Algerian"]),
    (&["Argentina"], &["Argentine", "Argentinian"]),
    (&["Australia"], &["Australian"]),
    (&["Austria"], &["Austrian"]),
    (&["Azerbaijan"], &["Azerbaijani", "Azeri"]),
    (&["Bahrain"], &["Bahraini"]),
    (&["Belgium"], &["Belgian"]),
    (&["Brazil"], &["Brazilian"]),
    (&["Bulgaria"], &["Bulgarian"]),
    (&["Canada"], &["Canadian"]),
    (&["Chile"], &["Chilean"]),
    (&["China"], &["Chinese"]),
    (&["Colombia"], &["Colombian"]),
    (&["Croatia"], &["Croatian"]),
    (&["Czech Republic", "Czechia"], &["Czech"]),
    (&["Denmark"], &["Danish", "Dane"]),
    (&["Egypt"], &["Egyptian"]),
    (&["Estonia"], &["Estonian"]),
    (&["Ethiopia"], &["Ethiopian"]),
    (&["Finland"], &["Finnish", "Finn"]),
    (&["France"], &["French"]),
    (&["Germany"], &["German"]),
    (&["Greece"], &["Greek"]),
    (&["Hungary"], &["Hungarian"]),
    (&["India"], &["Indian"]),
    (&["Indonesia"], &["Indonesian"]),
    (&["Iran"], &["Iranian"]),
    (&["Iraq"], &["Iraqi"]),
    (&["Ireland"], &["Irish"]),
    (&["Israel"], &["Israeli"]),
    (&["Italy"], &["Italian"]),
    (&["Japan"], &["Japanese"]),
    (&["Jordan"], &["Jordanian"]),
    (&["Kenya"], &["Kenyan"]),
    (&["Korea", "South Korea"], &["Korean", "South Korean"]),
    (&["Liechtenstein"], &["Liechtensteiner"]),
    (&["Luxembourg"], &["Luxembourgish", "Luxembourger"]),
    (&["Malaysia"], &["Malaysian"]),
    (&["Mexico"], &["Mexican"]),
    (&["Monaco"], &["Monegasque", "Monacan"]),
    (&["Morocco"], &["Moroccan"]),
    (&["Mozambique"], &["Mozambican"]),
    (&["Netherlands", "Holland"], &["Dutch"]),
    (&["New Zealand"], &["New Zealander", "Kiwi"]),
    (&["Nigeria"], &["Nigerian"]),
    (&["Norway"], &["Norwegian"]),
    (&["Peru"], &["Peruvian"]),
    (&["Philippines"], &["Filipino", "Philippine"]),
    (&["Poland"], &["Polish", "Pole"]),
    (&["Portugal"], &["Portuguese"]),
    (&["Qatar"], &["Qatari"]),
    (&["Romania"], &["Romanian"]),
    (&["Russia"], &["Russian"]),
    (&["Saudi Arabia"], &["Saudi", "Saudi Arabian"]),
    (&["Singapore"], &["Singaporean"]),
    (&["Slovakia"], &["Slovak", "Slovakian"]),
    (&["Slovenia"], &["Slovenian", "Slovene"]),
    (&["South Africa"], &["South African"]),
    (&["Spain"], &["Spanish", "Spaniard"]),
    (&["Sweden"], &["Swedish", "Swede"]),
    (&["Switzerland"], &["Swiss"]),
    (&["Thailand"], &["Thai"]),
    (&["Turkey", "Türkiye"], &["Turkish"]),
    (&["UAE", "United Arab Emirates"], &["Emirati"]),
    (&["Ukraine"], &["Ukrainian"]),
    (
        &["United Kingdom", "UK", "Great Britain", "Britain"],
        &["British", "Briton"],
    ),
    (
        &["United States", "USA", "US", "United States of America"],
        &["American"],
    ),
    (&["Uruguay"], &["Uruguayan"]),
    (&["Venezuela"], &["Venezuelan"]),
    (&["Vietnam", "Viet Nam"], &["Vietnamese"]),
    // Continents and regions, as sales regions are named: "European
    // countries" are the nations of EUROPE. America is left out: "American"
    // is the United States' people.
    (&["Europe"], &["European"]),
    (&["Asia"], &["Asian"]),
    (&["Africa"], &["African"]),
    (&["Middle East"], &["Middle Eastern"]),
    (&["Oceania"], &["Oceanian"]),
    (
        &["South America", "Latin America"],
        &["South American", "Latin American"],
    ),
    (&["North America"], &["North American"]),
];

/// Every name and adjective, folded, with the country it belongs to: built
/// once, as lexicons look up every value of every text attribute.
static BY_WORD: LazyLock<HashMap<String, usize>> = LazyLock::new(|| {
    let mut by_word = HashMap::new();
    for (i, (names, adjectives)) in COUNTRIES.iter().enumerate() {
        for word in names.iter().chain(adjectives.iter()) {
            by_word.insert(text::fold(word), i);
        }
    }
    by_word
});

/// The longest name or adjective, in characters: longer values are no country.
const LONGEST: usize = 24;

/// The other words for the country a value names: a country's adjectives
/// and other names for a country ("Finland" → "Finnish"), a people's
/// country names and other adjectives ("Finnish" → "Finland", "Finn").
/// Empty when the value names no country; compared without case or accents,
/// as data spell countries in capitals ("UNITED KINGDOM") as often as not.
pub fn kin(value: &str) -> Vec<&'static str> {
    let value = value.trim();
    if value.len() > LONGEST || value.chars().any(|c| c.is_ascii_digit()) {
        return Vec::new();
    }
    let folded = text::fold(value);
    let Some(&i) = BY_WORD.get(&folded) else {
        return Vec::new();
    };
    let (names, adjectives) = COUNTRIES[i];
    names
        .iter()
        .chain(adjectives.iter())
        .filter(|word| text::fold(word) != folded)
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::kin;

    #[test]
    fn a_country_and_its_people_name_each_other() {
        assert!(kin("Finnish").contains(&"Finland"));
        assert!(kin("Finland").contains(&"Finnish"));
        assert!(kin("UNITED KINGDOM").contains(&"British"));
        assert!(kin("British").contains(&"UK"));
        assert!(kin("Dutch").contains(&"Netherlands"));
        assert!(!kin("Germany").contains(&"Germany"));
        assert!(kin("EUROPE").contains(&"European"));
    }

    #[test]
    fn no_name_is_longer_than_the_longest_looked_up() {
        for (names, adjectives) in super::COUNTRIES {
            for word in names.iter().chain(adjectives.iter()) {
                assert!(word.len() <= super::LONGEST, "{word}");
            }
        }
    }

    #[test]
    fn other_values_have_no_kin() {
        assert!(kin("Ferrari").is_empty());
        assert!(kin("American-Italian").is_empty());
        assert!(kin("").is_empty());
    }
}
