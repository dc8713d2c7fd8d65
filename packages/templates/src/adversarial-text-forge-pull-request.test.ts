import { describeAdversarialText } from './__tests__/adversarial.js';

describeAdversarialText('forge-pull-request');
