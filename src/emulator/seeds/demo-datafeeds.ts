import { guidFor } from "../catalogue/guid.ts";

/*
 * The data feeds of the demo seeds: read-only, fixed, the same on every start, so that clients
 * that monitor feeds have a completed run, a run with warnings, a faulted run and a feed that never
 * ran to show. egp does not manage data feeds; nothing writes them.
 */

/** The platform's run status codes, as public clients decode them. */
export const FeedStatus = {
  Running: 1,
  Completed: 2,
  Faulted: 3,
  Warning: 4,
  Terminating: 5,
  Terminated: 6,
  Pending: 7,
} as const;

export interface RecordCounts {
  Created: number;
  Updated: number;
  Deleted: number;
  Failed: number;
}

export interface DataFeed {
  Id: number;
  Guid: string;
  Name: string;
  Description: string;
  Active: boolean;
  /** When the newest run started, or null for a feed that never ran. */
  LastRun: string | null;
  NextRun: string | null;
}

export interface FeedRun {
  Id: number;
  DataFeedGuid: string;
  JobId: number;
  Status: number;
  WasManuallyStarted: boolean;
  StartTime: string;
  EndTime: string | null;
  SourceRecordsProcessed: number;
  TargetRecords: RecordCounts;
  ChildRecords: RecordCounts;
  SubFormRecords: RecordCounts;
}

export interface FeedMessage {
  Id: number;
  DataFeedHistoryId: number;
  DatafeedMessageId: number;
  DatafeedMessage: string;
  DatafeedMessageParameters: string;
  /** The source row the message is about, -1 for the run as a whole. */
  Row: number;
}

export interface DemoFeeds {
  feeds: DataFeed[];
  runs: FeedRun[];
  messages: FeedMessage[];
}

const counts = (Created = 0, Updated = 0, Deleted = 0, Failed = 0): RecordCounts => ({
  Created,
  Updated,
  Deleted,
  Failed,
});
const none = counts();
const feedGuid = (name: string) => guidFor(`egp-datafeed:${name}`);

const THREATS = feedGuid("Threat Intelligence Import");
const ASSETS = feedGuid("Asset Inventory Sync");
const VENDORS = feedGuid("Legacy Vendor Feed");

function run(
  Id: number,
  DataFeedGuid: string,
  Status: number,
  StartTime: string,
  EndTime: string,
  processed: number,
  TargetRecords: RecordCounts,
): FeedRun {
  return {
    Id,
    DataFeedGuid,
    JobId: 5000 + Id,
    Status,
    WasManuallyStarted: false,
    StartTime,
    EndTime,
    SourceRecordsProcessed: processed,
    TargetRecords,
    ChildRecords: none,
    SubFormRecords: none,
  };
}

const DEMO: DemoFeeds = {
  feeds: [
    {
      Id: 1,
      Guid: THREATS,
      Name: "Threat Intelligence Import",
      Description: "Imports indicators from the threat intelligence service every night.",
      Active: true,
      LastRun: "2026-01-14T02:00:00",
      NextRun: "2026-01-15T02:00:00",
    },
    {
      Id: 2,
      Guid: ASSETS,
      Name: "Asset Inventory Sync",
      Description: "Updates devices from the configuration management database.",
      Active: true,
      LastRun: "2026-01-14T03:00:00",
      NextRun: "2026-01-15T03:00:00",
    },
    {
      Id: 3,
      Guid: VENDORS,
      Name: "Legacy Vendor Feed",
      Description: "Retired vendor list import.",
      Active: false,
      LastRun: null,
      NextRun: null,
    },
  ],
  runs: [
    run(
      101,
      THREATS,
      FeedStatus.Completed,
      "2026-01-13T02:00:00",
      "2026-01-13T02:04:10",
      120,
      counts(12, 108),
    ),
    run(
      102,
      THREATS,
      FeedStatus.Warning,
      "2026-01-14T02:00:00",
      "2026-01-14T02:05:02",
      131,
      counts(3, 126, 0, 2),
    ),
    run(103, ASSETS, FeedStatus.Faulted, "2026-01-14T03:00:00", "2026-01-14T03:00:41", 0, none),
  ],
  messages: [
    {
      Id: 1,
      DataFeedHistoryId: 102,
      DatafeedMessageId: 4021,
      DatafeedMessage: "The value 'Severe' is not in the values list Severity.",
      DatafeedMessageParameters: "Severity",
      Row: 17,
    },
    {
      Id: 2,
      DataFeedHistoryId: 102,
      DatafeedMessageId: 4021,
      DatafeedMessage: "The value 'Severe' is not in the values list Severity.",
      DatafeedMessageParameters: "Severity",
      Row: 88,
    },
    {
      Id: 3,
      DataFeedHistoryId: 103,
      DatafeedMessageId: 1003,
      DatafeedMessage: "The source could not be reached: connection refused.",
      DatafeedMessageParameters: "",
      Row: -1,
    },
  ],
};

const NONE: DemoFeeds = { feeds: [], runs: [], messages: [] };

/** The feeds a seed holds: the demo set on the demo seeds, none on the others. */
export function feedsOfSeed(seed: string): DemoFeeds {
  return seed.startsWith("demo-") ? DEMO : NONE;
}
