/*! dygraphs 2.2.1, as packaged by Debian (libjs-dygraphs), embedded by couplet report.
 *
 * Copyright (c) 2006, 2009, 2011, 2012, 2013, 2017 Dan Vanderkam <danvdk@gmail.com>
 * Copyright (c) 2011 Paul Felix <paul.eric.felix@gmail.com>
 * Copyright (c) 2011, 2013 Robert Konigsberg <konigsberg@google.com>
 * Copyright (c) 2013 David Eberlein <david.eberlein@ch.sauter-bc.com>
 * Copyright (c) 2013 Google, Inc.
 * Copyright (c) 2014 mirabilos <m@mirbsd.org>
 * Copyright (c) 2015 Petr Shevtsov <petr.shevtsov@gmail.com>
 * Copyright (c) 2022, 2023 mirabilos <t.glaser@tarent.de>, Deutsche Telekom LLCTO
 * and numerous contributors (see git log)
 * The browser-pack shim: Copyright (c) 2013, 2014 James Halliday, (c) 2013 Roman
 * Shtylman, (c) 2013 Esa-Matti Suuronen, (c) 2018 Philipp Simon Schmidt.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy of
 * this software and associated documentation files (the "Software"), to deal in
 * the Software without restriction, including without limitation the rights to
 * use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
 * the Software, and to permit persons to whom the Software is furnished to do so,
 * subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
 * FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
 * COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
 * IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
 * CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 */
