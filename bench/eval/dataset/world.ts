/**
 * World knowledge the generator draws on: the facts the open-domain questions need (a city's
 * country, a breed's origin, an instrument's family, a dish's cuisine, a maker's home country).
 * Every entry is a plain, well-known fact written for this set; nothing is copied from a corpus.
 */

export interface Destination {
  city: string;
  country: string;
  continent: string;
  /** Left out where one answer would be arguable. */
  language?: string;
  currency: string;
}

export const DESTINATIONS: readonly Destination[] = [
  { city: "Lisbon", country: "Portugal", continent: "Europe", language: "Portuguese", currency: "the euro" },
  { city: "Kyoto", country: "Japan", continent: "Asia", language: "Japanese", currency: "the yen" },
  {
    city: "Mexico City",
    country: "Mexico",
    continent: "North America",
    language: "Spanish",
    currency: "the Mexican peso",
  },
  {
    city: "Buenos Aires",
    country: "Argentina",
    continent: "South America",
    language: "Spanish",
    currency: "the Argentine peso",
  },
  { city: "Marrakesh", country: "Morocco", continent: "Africa", language: "Arabic", currency: "the dirham" },
  {
    city: "Reykjavik",
    country: "Iceland",
    continent: "Europe",
    language: "Icelandic",
    currency: "the Icelandic krona",
  },
  { city: "Hanoi", country: "Vietnam", continent: "Asia", language: "Vietnamese", currency: "the dong" },
  { city: "Seoul", country: "South Korea", continent: "Asia", language: "Korean", currency: "the won" },
  {
    city: "Prague",
    country: "the Czech Republic",
    continent: "Europe",
    language: "Czech",
    currency: "the koruna",
  },
  { city: "Cape Town", country: "South Africa", continent: "Africa", currency: "the rand" },
  {
    city: "Vancouver",
    country: "Canada",
    continent: "North America",
    language: "English",
    currency: "the Canadian dollar",
  },
  {
    city: "Sydney",
    country: "Australia",
    continent: "Oceania",
    language: "English",
    currency: "the Australian dollar",
  },
  {
    city: "Auckland",
    country: "New Zealand",
    continent: "Oceania",
    language: "English",
    currency: "the New Zealand dollar",
  },
  { city: "Bangkok", country: "Thailand", continent: "Asia", language: "Thai", currency: "the baht" },
  { city: "Athens", country: "Greece", continent: "Europe", language: "Greek", currency: "the euro" },
  {
    city: "Budapest",
    country: "Hungary",
    continent: "Europe",
    language: "Hungarian",
    currency: "the forint",
  },
  { city: "Lima", country: "Peru", continent: "South America", language: "Spanish", currency: "the sol" },
  {
    city: "Oslo",
    country: "Norway",
    continent: "Europe",
    language: "Norwegian",
    currency: "the Norwegian krone",
  },
  {
    city: "Edinburgh",
    country: "Scotland",
    continent: "Europe",
    language: "English",
    currency: "the pound sterling",
  },
  {
    city: "Cairo",
    country: "Egypt",
    continent: "Africa",
    language: "Arabic",
    currency: "the Egyptian pound",
  },
  { city: "Krakow", country: "Poland", continent: "Europe", language: "Polish", currency: "the zloty" },
  {
    city: "Copenhagen",
    country: "Denmark",
    continent: "Europe",
    language: "Danish",
    currency: "the Danish krone",
  },
  { city: "Vienna", country: "Austria", continent: "Europe", language: "German", currency: "the euro" },
  { city: "Dublin", country: "Ireland", continent: "Europe", currency: "the euro" },
  {
    city: "Bogota",
    country: "Colombia",
    continent: "South America",
    language: "Spanish",
    currency: "the Colombian peso",
  },
  {
    city: "Santiago",
    country: "Chile",
    continent: "South America",
    language: "Spanish",
    currency: "the Chilean peso",
  },
  { city: "Nairobi", country: "Kenya", continent: "Africa", currency: "the Kenyan shilling" },
  {
    city: "Montreal",
    country: "Canada",
    continent: "North America",
    language: "French",
    currency: "the Canadian dollar",
  },
];

/** Cities people live in; the neighbourhoods are invented. */
export interface HomeCity {
  city: string;
  /** The state, province or nation it is in. */
  region: string;
  neighbourhoods: readonly string[];
}

export const HOME_CITIES: readonly HomeCity[] = [
  { city: "Portland", region: "Oregon", neighbourhoods: ["Alder Hill", "Rosewood", "the Pearl Yards"] },
  { city: "Chicago", region: "Illinois", neighbourhoods: ["Linden Park", "Westfield", "Harbor Row"] },
  { city: "Austin", region: "Texas", neighbourhoods: ["Cedar Bend", "Bluebonnet Heights", "Mill Creek"] },
  { city: "Denver", region: "Colorado", neighbourhoods: ["Aspen Ridge", "Sloan Park", "Highline"] },
  { city: "Boston", region: "Massachusetts", neighbourhoods: ["Beacon Flats", "Elm Grove", "Wharfside"] },
  { city: "Seattle", region: "Washington", neighbourhoods: ["Fernridge", "Lake Terrace", "Juniper Point"] },
  { city: "Minneapolis", region: "Minnesota", neighbourhoods: ["Northloop", "Birchwood", "Stone Arch"] },
  { city: "Toronto", region: "Ontario", neighbourhoods: ["Maple Court", "Queensgate", "Ravine Park"] },
  { city: "Manchester", region: "England", neighbourhoods: ["Ancoats Green", "Millbrook", "Canal Side"] },
  { city: "Melbourne", region: "Victoria", neighbourhoods: ["Wattle Grove", "Bayside", "Laneway Quarter"] },
  {
    city: "Atlanta",
    region: "Georgia",
    neighbourhoods: ["Peachtree Hollow", "Oak Terrace", "Magnolia Park"],
  },
  {
    city: "Phoenix",
    region: "Arizona",
    neighbourhoods: ["Saguaro Flats", "Desert View", "Camelback Gardens"],
  },
  {
    city: "Nashville",
    region: "Tennessee",
    neighbourhoods: ["Riverside Bend", "Music Row East", "Hillcrest"],
  },
  { city: "Calgary", region: "Alberta", neighbourhoods: ["Bow Valley", "Prairie Heights", "Elbow Park"] },
];

export interface Breed {
  name: string;
  origin: string;
}

export const DOG_BREEDS: readonly Breed[] = [
  { name: "beagle", origin: "England" },
  { name: "Shiba Inu", origin: "Japan" },
  { name: "dachshund", origin: "Germany" },
  { name: "Chihuahua", origin: "Mexico" },
  { name: "Bernese mountain dog", origin: "Switzerland" },
  { name: "Samoyed", origin: "Russia" },
  { name: "Akita", origin: "Japan" },
  { name: "Vizsla", origin: "Hungary" },
  { name: "Dalmatian", origin: "Croatia" },
  { name: "Welsh corgi", origin: "Wales" },
  { name: "Great Dane", origin: "Germany" },
  { name: "whippet", origin: "England" },
  { name: "Irish setter", origin: "Ireland" },
  { name: "Siberian husky", origin: "Russia" },
  { name: "pug", origin: "China" },
  { name: "boxer", origin: "Germany" },
];

export const CAT_BREEDS: readonly Breed[] = [
  { name: "Siamese", origin: "Thailand" },
  { name: "Maine Coon", origin: "the United States" },
  { name: "Persian", origin: "Iran" },
  { name: "Norwegian Forest cat", origin: "Norway" },
  { name: "Russian Blue", origin: "Russia" },
  { name: "Bengal", origin: "the United States" },
  { name: "Scottish Fold", origin: "Scotland" },
  { name: "Sphynx", origin: "Canada" },
  { name: "Turkish Van", origin: "Turkey" },
  { name: "Burmese", origin: "Myanmar" },
];

/** Pets without a breed: what the open-domain question asks is their class of animal. */
export interface SmallPet {
  species: string;
  animalClass: string;
}

export const SMALL_PETS: readonly SmallPet[] = [
  { species: "rabbit", animalClass: "a mammal" },
  { species: "parrot", animalClass: "a bird" },
  { species: "budgie", animalClass: "a bird" },
  { species: "tortoise", animalClass: "a reptile" },
  { species: "leopard gecko", animalClass: "a reptile" },
  { species: "guinea pig", animalClass: "a mammal" },
  { species: "axolotl", animalClass: "an amphibian" },
];

export interface Instrument {
  name: string;
  family: string;
}

export const INSTRUMENTS: readonly Instrument[] = [
  { name: "violin", family: "strings" },
  { name: "cello", family: "strings" },
  { name: "viola", family: "strings" },
  { name: "double bass", family: "strings" },
  { name: "trumpet", family: "brass" },
  { name: "trombone", family: "brass" },
  { name: "French horn", family: "brass" },
  { name: "tuba", family: "brass" },
  { name: "flute", family: "woodwind" },
  { name: "clarinet", family: "woodwind" },
  { name: "oboe", family: "woodwind" },
  { name: "saxophone", family: "woodwind" },
  { name: "bassoon", family: "woodwind" },
  { name: "marimba", family: "percussion" },
  { name: "snare drum", family: "percussion" },
];

export interface Sport {
  name: string;
  /** Where the sport was first played. */
  origin: string;
  /** The verb phrase: "playing basketball", "at judo". */
  doing: string;
}

export const SPORTS: readonly Sport[] = [
  { name: "basketball", origin: "the United States", doing: "playing basketball" },
  { name: "volleyball", origin: "the United States", doing: "playing volleyball" },
  { name: "cricket", origin: "England", doing: "playing cricket" },
  { name: "rugby", origin: "England", doing: "playing rugby" },
  { name: "judo", origin: "Japan", doing: "at judo practice" },
  { name: "taekwondo", origin: "Korea", doing: "at taekwondo class" },
  { name: "ice hockey", origin: "Canada", doing: "playing ice hockey" },
  { name: "squash", origin: "England", doing: "playing squash" },
  { name: "softball", origin: "the United States", doing: "playing softball" },
];

export interface Dish {
  name: string;
  cuisine: string;
}

export const DISHES: readonly Dish[] = [
  { name: "paella", cuisine: "Spain" },
  { name: "pierogi", cuisine: "Poland" },
  { name: "bibimbap", cuisine: "Korea" },
  { name: "moussaka", cuisine: "Greece" },
  { name: "pad thai", cuisine: "Thailand" },
  { name: "goulash", cuisine: "Hungary" },
  { name: "feijoada", cuisine: "Brazil" },
  { name: "pho", cuisine: "Vietnam" },
  { name: "lamb tagine", cuisine: "Morocco" },
  { name: "tonkotsu ramen", cuisine: "Japan" },
  { name: "mushroom risotto", cuisine: "Italy" },
  { name: "borscht", cuisine: "Ukraine" },
  { name: "mole poblano", cuisine: "Mexico" },
  { name: "ceviche", cuisine: "Peru" },
  { name: "pastel de nata", cuisine: "Portugal" },
  { name: "chicken biryani", cuisine: "India" },
];

/** Things people buy, with makers whose home country the open-domain questions ask about. */
export interface Product {
  /** The plain noun: "car". */
  item: string;
  /** Other words for it, for the paraphrased questions. */
  synonyms: readonly string[];
  makers: readonly { name: string; country: string }[];
  /** "a used {maker} hatchback": how the owner describes it. */
  styles: readonly string[];
  priceRange: readonly [number, number];
}

export const PRODUCTS: readonly Product[] = [
  {
    item: "car",
    synonyms: ["vehicle", "set of wheels"],
    makers: [
      { name: "Toyota", country: "Japan" },
      { name: "Volvo", country: "Sweden" },
      { name: "Fiat", country: "Italy" },
      { name: "Skoda", country: "the Czech Republic" },
      { name: "Kia", country: "South Korea" },
      { name: "Peugeot", country: "France" },
      { name: "Subaru", country: "Japan" },
      { name: "Volkswagen", country: "Germany" },
    ],
    styles: ["a used {maker} hatchback", "a secondhand {maker} station wagon", "a little {maker} city car"],
    priceRange: [4500, 16000],
  },
  {
    item: "camera",
    synonyms: ["photography gear", "snapper for taking pictures"],
    makers: [
      { name: "Nikon", country: "Japan" },
      { name: "Fujifilm", country: "Japan" },
      { name: "Leica", country: "Germany" },
      { name: "Hasselblad", country: "Sweden" },
    ],
    styles: ["a {maker} mirrorless camera", "a refurbished {maker} camera"],
    priceRange: [450, 2400],
  },
  {
    item: "laptop",
    synonyms: ["computer", "notebook PC"],
    makers: [
      { name: "Lenovo", country: "China" },
      { name: "Asus", country: "Taiwan" },
      { name: "Dell", country: "the United States" },
      { name: "Acer", country: "Taiwan" },
    ],
    styles: ["a {maker} laptop", "a lightweight {maker} laptop"],
    priceRange: [600, 1900],
  },
  {
    item: "guitar",
    synonyms: ["six-string", "acoustic instrument"],
    makers: [
      { name: "Yamaha", country: "Japan" },
      { name: "Fender", country: "the United States" },
      { name: "Gibson", country: "the United States" },
    ],
    styles: ["a {maker} acoustic guitar", "a vintage {maker} guitar"],
    priceRange: [250, 1500],
  },
  {
    item: "motorbike",
    synonyms: ["motorcycle", "two-wheeler with an engine"],
    makers: [
      { name: "Ducati", country: "Italy" },
      { name: "Triumph", country: "England" },
      { name: "Kawasaki", country: "Japan" },
    ],
    styles: ["a {maker} motorbike", "a secondhand {maker} motorbike"],
    priceRange: [3000, 9000],
  },
];

export interface Role {
  title: string;
  sector: string;
  /** Company name endings that fit the sector. */
  suffixes: readonly string[];
}

export const ROLES: readonly Role[] = [
  { title: "data analyst", sector: "technology", suffixes: ["Analytics", "Software"] },
  { title: "UX researcher", sector: "technology", suffixes: ["Software", "Labs"] },
  { title: "nurse", sector: "healthcare", suffixes: ["Clinic", "Medical Center"] },
  { title: "pharmacist", sector: "healthcare", suffixes: ["Pharmacy", "Health"] },
  { title: "physiotherapist", sector: "healthcare", suffixes: ["Clinic", "Health"] },
  { title: "graphic designer", sector: "design", suffixes: ["Studio", "Design"] },
  { title: "sous chef", sector: "hospitality", suffixes: ["Bistro", "Kitchen"] },
  { title: "paralegal", sector: "law", suffixes: ["Legal", "Law Group"] },
  { title: "civil engineer", sector: "engineering", suffixes: ["Engineering", "Builders"] },
  { title: "chemistry teacher", sector: "education", suffixes: ["Academy", "High School"] },
  { title: "accountant", sector: "finance", suffixes: ["Accounting", "Capital"] },
  { title: "marketing coordinator", sector: "marketing", suffixes: ["Media", "Marketing"] },
  { title: "logistics planner", sector: "logistics", suffixes: ["Freight", "Logistics"] },
  { title: "lab technician", sector: "science", suffixes: ["Labs", "Research"] },
];

export const COMPANY_PREFIXES: readonly string[] = [
  "Brightwave",
  "Northpine",
  "Copperleaf",
  "Bluefin",
  "Riverbend",
  "Meridian",
  "Tallgrass",
  "Lumen",
  "Oakridge",
  "Summit",
  "Pinecrest",
  "Fernhill",
  "Kestrel",
  "Saltmarsh",
  "Greystone",
  "Willowby",
  "Cobalt",
  "Harborlight",
  "Redcliff",
  "Silverline",
  "Amberfield",
  "Stonebridge",
  "Ironwood",
  "Clearwater",
  "Goldcrest",
  "Foxglove",
];

export interface LanguageCourse {
  language: string;
  /** Countries where it is an official language (any one answers). */
  countries: string;
}

export const LANGUAGE_COURSES: readonly LanguageCourse[] = [
  { language: "Italian", countries: "Italy, Switzerland, San Marino" },
  { language: "Japanese", countries: "Japan" },
  { language: "Portuguese", countries: "Portugal, Brazil, Mozambique, Angola" },
  { language: "Mandarin", countries: "China, Taiwan, Singapore" },
  { language: "Swahili", countries: "Kenya, Tanzania, Uganda" },
  { language: "Dutch", countries: "the Netherlands, Belgium, Suriname" },
  { language: "Greek", countries: "Greece, Cyprus" },
  { language: "Korean", countries: "South Korea, North Korea" },
];

/** Injuries and illnesses, and what the paraphrased questions call them. */
export interface Ailment {
  /** "I sprained my ankle" */
  told: string;
  /** What later talk and questions call it: "ankle", "pneumonia". */
  topic: string;
  /** Caused by a sport (its `doing` phrase follows `told`). */
  fromSport: boolean;
}

export const AILMENTS: readonly Ailment[] = [
  { told: "sprained my ankle", topic: "ankle", fromSport: true },
  { told: "broke my wrist", topic: "wrist", fromSport: true },
  { told: "pulled a hamstring", topic: "hamstring", fromSport: true },
  { told: "tore a ligament in my knee", topic: "knee", fromSport: true },
  { told: "dislocated my shoulder", topic: "shoulder", fromSport: true },
  { told: "came down with pneumonia", topic: "pneumonia", fromSport: false },
  { told: "had my appendix out", topic: "appendix surgery", fromSport: false },
  { told: "got a nasty ear infection", topic: "ear infection", fromSport: false },
];
