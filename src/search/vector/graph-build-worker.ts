/**
 * The thread vector graphs are built on (graph-builder.ts): each question is one round
 * (graph-build.ts), answered once its graph file is written and synced.
 */
import { answerQuestions } from "../../runtime/worker-thread.ts";
import { buildGraphRound } from "./graph-build.ts";

answerQuestions(buildGraphRound);
