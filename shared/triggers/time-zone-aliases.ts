/**
 * IANA zone names that `Intl` resolves to another name (links, such as `US/Pacific` → `America/Los_Angeles`, and
 * names ICU keeps under an older spelling, such as `Asia/Kolkata` → `Asia/Calcutta`), spelled as IANA spells them.
 * `Intl` matches zone names regardless of case and cannot list its links, so the spelling of such a name is judged
 * against this list: EventBridge Scheduler is handed the name as written.
 *
 * Made from the zone ids of java.time (OpenJDK 17.0.15, tzdata 2025a) whose `Intl` resolution (Node 24) differs,
 * plus `EST`, `MST` and `HST`, which CDK's `TimeZone` offers for Scheduler and java.time lists only as short ids.
 * test/triggers/time-zone-aliases.test.ts checks that every entry is a zone `Intl` knows under another name.
 */
const BY_AREA: Record<string, string> = {
  'Africa/': 'Asmara Timbuktu',
  'America/Argentina/': 'Buenos_Aires Catamarca ComodRivadavia Cordoba Jujuy Mendoza',
  'America/':
    'Atikokan Atka Ensenada Fort_Wayne Knox_IN Montreal Nipigon Nuuk Pangnirtung Porto_Acre Rainy_River Rosario Santa_Isabel Shiprock Thunder_Bay Virgin Yellowknife',
  'America/Indiana/': 'Indianapolis',
  'America/Kentucky/': 'Louisville',
  'Antarctica/': 'South_Pole',
  'Asia/':
    'Ashkhabad Choibalsan Chongqing Chungking Dacca Harbin Ho_Chi_Minh Istanbul Kashgar Kathmandu Kolkata Macao Tel_Aviv Thimbu Ujung_Pandang Ulan_Bator Yangon',
  'Atlantic/': 'Faroe Jan_Mayen',
  'Australia/': 'ACT Canberra Currie LHI NSW North Queensland South Tasmania Victoria West Yancowinna',
  'Brazil/': 'Acre DeNoronha East West',
  '': 'CET CST6CDT Cuba EET EST EST5EDT Egypt Eire GB GB-Eire GMT GMT0 Greenwich HST Hongkong Iceland Iran Israel Jamaica Japan Kwajalein Libya MET MST MST7MDT NZ NZ-CHAT Navajo PRC PST8PDT Poland Portugal ROK Singapore Turkey UCT Universal W-SU WET Zulu',
  'Canada/': 'Atlantic Central Eastern Mountain Newfoundland Pacific Saskatchewan Yukon',
  'Chile/': 'Continental EasterIsland',
  'Etc/': 'GMT GMT+0 GMT-0 GMT0 Greenwich UCT UTC Universal Zulu',
  'Europe/': 'Belfast Kyiv Nicosia Tiraspol Uzhgorod Zaporozhye',
  'Mexico/': 'BajaNorte BajaSur General',
  'Pacific/': 'Chuuk Johnston Kanton Pohnpei Samoa Yap',
  'US/':
    'Alaska Aleutian Arizona Central East-Indiana Eastern Hawaii Indiana-Starke Michigan Mountain Pacific Samoa',
};

/** Lower-cased name → IANA's spelling. */
const SPELLINGS: ReadonlyMap<string, string> = new Map(
  Object.entries(BY_AREA).flatMap(([area, names]) =>
    names.split(' ').map((name) => [`${area}${name}`.toLowerCase(), `${area}${name}`] as const),
  ),
);

/** IANA's spelling of a linked zone name written in any case, or undefined when it is not one. */
export function aliasSpelling(timeZone: string): string | undefined {
  return SPELLINGS.get(timeZone.toLowerCase());
}

/** Every linked zone name, as IANA spells it. */
export function zoneAliases(): string[] {
  return [...SPELLINGS.values()];
}
