/** Every episode kind the generator draws from. */
import type { EpisodeKind } from "../episode.ts";
import { book, concert, cooking, course } from "./culture.ts";
import { relativeIntro, relativeNews } from "./family.ts";
import { health } from "./health.ts";
import { hobbyMilestone, hobbyStart } from "./hobbies.ts";
import { homeIntro, move } from "./home.ts";
import { adoptPet, petNews } from "./pets.ts";
import { purchase } from "./purchases.ts";
import { trip } from "./trips.ts";
import { jobChange, jobIntro, promotion } from "./work.ts";

/** Told in the first sessions, once per person. */
export const INTRODUCTIONS = { home: homeIntro, job: jobIntro } as const;

/** Drawn by weight for the later sessions. */
export const LIFE_EVENTS: readonly EpisodeKind[] = [
  adoptPet,
  petNews,
  trip,
  jobChange,
  promotion,
  move,
  relativeIntro,
  relativeNews,
  hobbyStart,
  hobbyMilestone,
  purchase,
  health,
  cooking,
  concert,
  book,
  course,
];
