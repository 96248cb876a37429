import fs from 'node:fs';
import path from 'node:path';
import { startFakeLlmServer, type FakeLlmServer } from '../../llm/testing/fake-llm-server';
import { samplingNonce } from './invariant-catalogue';
import {
  createHarness,
  emptyTally,
  recordCall,
  recordConnect,
  recordElicitationAnswer,
  recordElicitationRequest,
  recordLeg,
  recordPageRequired,
  recordSamplingAnswer,
  recordSamplingRequest,
} from './invariant-harness';
import { startRecordingServers, type RecordingServers } from './recording-servers';
import { createScriptedModel, lastUserText, type ScriptedModel } from './scripted-model';

/**
 * What every trust-invariant run shares (docs/dev/testing.md, "The trust invariant"): the recording servers, the fake
 * LLM server answering as the scripted model, and a data folder with the servers added, copied for each sequence.
 */
export interface InvariantParts {
  servers: RecordingServers;
  fake: FakeLlmServer;
  model: ScriptedModel;
  template: string;
  close(): Promise<void>;
}

export async function startInvariantParts(): Promise<InvariantParts> {
  const model = createScriptedModel();
  const servers = await startRecordingServers({
    onCall: recordCall,
    onSamplingAnswer: recordSamplingAnswer,
    onElicitationRequest: recordElicitationRequest,
    onElicitationAnswer: recordElicitationAnswer,
    onPageRequired: recordPageRequired,
    onLeg: recordLeg,
    onConnect: recordConnect,
  });
  const fake = await startFakeLlmServer({
    respond: (request) => {
      const text = lastUserText(request);
      if (samplingNonce(text) !== null) recordSamplingRequest(text);
      return model.respond(request);
    },
  });
  const template = await (await createHarness({ servers, fake, managed: null, tally: emptyTally() })).keepAsTemplate();
  return {
    servers,
    fake,
    model,
    template,
    close: async () => {
      fs.rmSync(path.dirname(template), { recursive: true, force: true });
      await servers.close();
      await fake.close();
    },
  };
}
