/**
 * The quality set: 24 questions an agent might ask, each paired with the one stored note that
 * answers it. The wording of each pair differs on purpose (few words shared), as a question and
 * the note that answers it usually do; a score is the share of questions whose own note ranks
 * first among the 24.
 */
export interface Pair {
  question: string;
  note: string;
}

export const PARAPHRASE_PAIRS: Pair[] = [
  { question: "How do I reset my password?", note: "Steps to recover a forgotten login credential" },
  { question: "When is lunch served?", note: "The canteen opens for the midday meal at noon" },
  {
    question: "How many vacation days do employees get?",
    note: "Staff receive twenty-five paid days of annual leave",
  },
  {
    question: "Who should I call if my laptop breaks?",
    note: "Contact the IT help desk for broken computer equipment",
  },
  { question: "Where can I park my car?", note: "Vehicles may be left in the garage beneath building B" },
  {
    question: "What is the customer's preferred contact channel?",
    note: "Acme's buyer would rather be reached by email than by phone",
  },
  {
    question: "Which database do we use for billing?",
    note: "Invoices and payments are stored in PostgreSQL",
  },
  {
    question: "When does the contract with Globex renew?",
    note: "The Globex agreement is up for extension on the first of March",
  },
  {
    question: "Why did the deployment fail last night?",
    note: "The overnight release broke because a migration timed out",
  },
  { question: "Is the office open on weekends?", note: "The building is closed on Saturdays and Sundays" },
  {
    question: "How do I submit an expense report?",
    note: "Upload receipts to the finance portal to be reimbursed",
  },
  {
    question: "Who is the account manager for Initech?",
    note: "Maria Lopez looks after the Initech relationship",
  },
  {
    question: "What time zone is the support team in?",
    note: "Our help staff work on Central European Time",
  },
  { question: "Can I bring my dog to work?", note: "Pets are welcome at the office on Fridays" },
  { question: "How long do refunds take?", note: "Money is returned to the buyer within five business days" },
  {
    question: "What did the client complain about?",
    note: "The customer was unhappy with slow shipping on their last order",
  },
  {
    question: "Which language is the mobile app written in?",
    note: "The iOS and Android clients are built with Kotlin and Swift",
  },
  {
    question: "Where is the quarterly report stored?",
    note: "The Q3 financial summary lives in the shared drive under Finance",
  },
  { question: "Who approved the budget increase?", note: "The CFO signed off on the extra spending in June" },
  {
    question: "How do I get a new badge?",
    note: "Lost access cards are replaced by reception on the ground floor",
  },
  { question: "What is the Wi-Fi network name?", note: "Connect to the wireless network called Guest-5G" },
  {
    question: "When is the next team offsite?",
    note: "The department retreat takes place in October in Lisbon",
  },
  { question: "What allergies does the client have?", note: "Mr. Chen cannot eat peanuts or shellfish" },
  {
    question: "How do we handle security incidents?",
    note: "Report any breach to the on-call engineer, who opens a ticket",
  },
];
