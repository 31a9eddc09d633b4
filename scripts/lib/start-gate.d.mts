export function startVerdict(status: number, confirmed: string | undefined, code: string): 'deploy' | 'keep' | 'fail';
