interface TransferResult { id: string; amount: number }

async function transfer(amount: number): Promise<TransferResult> {
  const r: TransferResult = await tools.fail({ status: "denied", reason: "approval_denied", message: `transfer of ${amount} denied` });
  return r;
}

const results: TransferResult[] = [];
results.push(await transfer(250));
return results;
