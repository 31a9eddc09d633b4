import { apiRequest, type Envelope } from './client';

export interface DayStats {
  date: string;
  drivingCount: number;
  chargingCount: number;
  issueCount: number;
  poiCount: number;
  /** Minutes, summed over the day's drives. */
  drivingTime: number;
  /** Kilometres, summed over the day's drives. */
  drivingDistance: number;
}

export interface TotalStats {
  drivingCount: number;
  chargingCount: number;
  issueCount: number;
  poiCount: number;
}

/** One day's counts and drive totals, computed by the server over all the day's rows. */
export async function fetchDayStats(date: string): Promise<DayStats> {
  return (await apiRequest<Envelope<DayStats>>('GET', '/vtp/stats/day', { query: { date } })).data;
}

export async function fetchTotalStats(): Promise<TotalStats> {
  return (await apiRequest<Envelope<TotalStats>>('GET', '/vtp/stats/total')).data;
}
