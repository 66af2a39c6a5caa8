/**
 * The project's own quality checks for the static table, written for it (no data set's text):
 * sentence pairs graded 0 (unrelated) to 4 (same meaning), and questions each answered by one note
 * that shares few or none of its words.
 */

/** [a, b, grade]: 4 same meaning, 3 mostly, 2 related topic, 1 loosely, 0 unrelated. */
export const STS_PAIRS: [string, string, number][] = [
  ["The invoice has not been paid yet.", "The bill is still outstanding.", 4],
  ["Ana moved to Lisbon last spring.", "Last spring Ana relocated to Lisbon.", 4],
  ["Ben is allergic to peanuts.", "Peanuts give Ben an allergic reaction.", 4],
  ["The meeting was moved to Thursday.", "We rescheduled the meeting for Thursday.", 4],
  ["She adopted a puppy.", "She got a young dog from the shelter.", 3],
  ["The customer wants a refund.", "The client asked for their money back.", 4],
  ["Our server crashed during the launch.", "The website went down on release day.", 3],
  ["Maya loves hiking in the mountains.", "Maya enjoys walking trails in the hills.", 3],
  ["The contract renewal is due in March.", "We must renew the agreement by March.", 4],
  ["He started learning to play the guitar.", "He is taking music lessons.", 2],
  ["The shipment was delayed by a storm.", "Bad weather held up the delivery.", 4],
  ["Priya is a nurse at the city hospital.", "Priya works in healthcare.", 3],
  ["The price of the plan went up.", "The subscription became more expensive.", 4],
  ["Tariq prefers phone calls to email.", "Tariq likes to be contacted by phone.", 3],
  ["The quarterly report is almost done.", "Sales dropped in the last quarter.", 2],
  ["My sister visited us last weekend.", "Our family gathered for dinner.", 1],
  ["The password reset link expired.", "I cannot log in to my account.", 2],
  ["We chose the cheaper vendor.", "The board approved the budget.", 1],
  ["He feels anxious about the interview.", "He is nervous before the job interview.", 4],
  ["The cat sleeps on the sofa.", "Invoice 4412 was refunded.", 0],
  ["Zoe runs every morning.", "The warehouse is closed on Sunday.", 0],
  ["The app crashes on the settings page.", "Grace baked bread for the party.", 0],
  ["Lena speaks fluent Japanese.", "The delivery truck broke down.", 0],
  ["We signed the deal with Globex.", "My grandmother grows tomatoes.", 0],
  ["The team celebrated the product launch.", "Everyone was happy the release shipped.", 3],
  ["Sam lost his job in January.", "Sam was laid off at the start of the year.", 4],
];

/** [question, the note that answers it]; every question is searched among all the notes. */
export const QUESTION_NOTES: [string, string][] = [
  ["What pet does Olga have?", "Olga adopted a kitten from the shelter in May."],
  ["Where does Hiro live now?", "Hiro relocated to Osaka after his promotion."],
  ["Which food can't Ben eat?", "Ben is allergic to peanuts and shellfish."],
  ["How does Tariq like to be contacted?", "Tariq said he only answers phone calls, never email."],
  ["When is the agreement up for renewal?", "The Globex contract renews on the first of March."],
  ["Why did we pick Northwind?", "Decision: Northwind won because their quote was the lowest."],
  ["What is Priya's job?", "Priya works night shifts as a nurse at the city hospital."],
  ["Is the customer owed money?", "Acme asked for a refund of the duplicate charge."],
  ["What went wrong on release day?", "The servers went down for two hours during the launch."],
  ["What does Maya do on weekends?", "Maya spends Saturdays walking mountain trails."],
  ["Who is covering while Jonas is away?", "Jonas is on vacation until Friday; Elif handles his accounts."],
  ["How is Sam feeling about work?", "Sam is stressed because his manager keeps adding deadlines."],
  ["What instrument is Dara learning?", "Dara takes violin lessons every Tuesday evening."],
  ["Did the delivery arrive on time?", "The shipment to Kestrel Foods was held up by a storm."],
  ["Which language does Lena speak?", "Lena grew up in Kyoto and is fluent in Japanese."],
  ["What did the bank charge for the plan?", "Maple Bank pays 400 euros a month for the enterprise tier."],
  ["Why can't Viktor sign in?", "Viktor's password reset link expired before he used it."],
  ["Who is Grace's new client contact?", "Kemal replaced Rosa as our point of contact at Blue Harbor."],
  ["When is Zoe's surgery?", "Zoe goes into the hospital for her knee operation next Wednesday."],
  ["What gift did Noah want?", "Noah hinted that he would love a new pair of running shoes."],
];
