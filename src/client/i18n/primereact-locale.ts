// PrimeReact's own words (a toast's or dialog's Close, a calendar's month and day names, its
// Previous Month...) in the language on screen. Loaded with the first switch of language, never
// by the sign-in page's entry: PrimeReact's core comes with the first component anyway.
import { addLocale, locale } from 'primereact/api';
import type { Language } from './index';

addLocale('zh', {
  accept: '是',
  reject: '否',
  apply: '应用',
  cancel: '取消',
  choose: '选择',
  chooseDate: '选择日期',
  chooseMonth: '选择月份',
  chooseYear: '选择年份',
  clear: '清除',
  dateFormat: 'yy-mm-dd',
  // The week starts on Sunday in both languages, as the product asks.
  firstDayOfWeek: 0,
  dayNames: ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'],
  dayNamesShort: ['周日', '周一', '周二', '周三', '周四', '周五', '周六'],
  dayNamesMin: ['日', '一', '二', '三', '四', '五', '六'],
  monthNames: ['一月', '二月', '三月', '四月', '五月', '六月', '七月', '八月', '九月', '十月', '十一月', '十二月'],
  monthNamesShort: ['1月', '2月', '3月', '4月', '5月', '6月', '7月', '8月', '9月', '10月', '11月', '12月'],
  today: '今天',
  now: '现在',
  am: '上午',
  pm: '下午',
  weekHeader: '周',
  emptyFilterMessage: '没有结果',
  emptyMessage: '没有可选项',
  nextMonth: '下个月',
  prevMonth: '上个月',
  nextYear: '下一年',
  prevYear: '上一年',
  nextDecade: '下一个十年',
  prevDecade: '上一个十年',
  nextHour: '下一小时',
  prevHour: '上一小时',
  nextMinute: '下一分钟',
  prevMinute: '上一分钟',
  nextSecond: '下一秒',
  prevSecond: '上一秒',
  upload: '上传',
  passwordPrompt: '请输入密码',
  aria: {
    close: '关闭',
    previous: '上一个',
    next: '下一个',
    navigation: '导航',
    pageLabel: '第 {page} 页',
    firstPageLabel: '第一页',
    lastPageLabel: '最后一页',
    nextPageLabel: '下一页',
    prevPageLabel: '上一页',
    listLabel: '选项列表',
    nullLabel: '未选择',
    trueLabel: '是',
    falseLabel: '否',
    scrollTop: '回到顶部',
    zoomImage: '放大图片',
    zoomIn: '放大',
    zoomOut: '缩小',
    rotateLeft: '向左旋转',
    rotateRight: '向右旋转',
  },
});

/** Makes PrimeReact's components speak the language. */
export function setPrimeLocale(language: Language): void {
  locale(language);
}
